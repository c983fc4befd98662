# runner/core: the command table (main.c, linked into the binary only); contracts.sh holds
# the public views and JSON keys to their documents in schemas/; demo.sh runs make demo from
# a clean clone, as root and not; docs_binary.sh holds the man page, --help and README to the code;
# readme_commands.sh runs every command line of README.md.
ITESTS += tests/integration/cli.sh tests/integration/layout_deps.sh
ITESTS += tests/integration/contracts.sh tests/integration/demo.sh tests/integration/docs_binary.sh
ITESTS += tests/integration/readme_commands.sh
