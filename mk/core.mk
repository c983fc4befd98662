# runner/core: the command table (main.c, linked into the binary only).
ITESTS += tests/integration/cli.sh tests/integration/layout_deps.sh
