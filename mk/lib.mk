# lib/: the base runner/ and report/ both use — errors with codes, units, the JSON writer,
# the command-line wording every subcommand shares.
LIB_SRC += lib/err.c lib/units.c lib/jsonw.c lib/cli.c lib/phases.c lib/sys/datadir.c lib/cidr.c \
	lib/sql/store_schema.c lib/steady.c lib/lathist.c lib/rpm.c
LIB_SRC += lib/sys/logout.c lib/sys/proc.c lib/settings.c
UNIT_TESTS += test_proc test_settings
LIB_SRC += lib/xml/xsdcheck.c lib/atomicfile.c lib/sql/store_read.c lib/textesc.c lib/cost.c lib/sql/sqlrow.c lib/sql/jsonr.c
EMBED += NS_STORE_SQL:schemas/store.sql NS_MATRIX_XSD:schemas/matrix.xsd \
	NS_CATALOG_XSD:schemas/catalog.xsd
UNIT_TESTS += test_units test_jsonw test_phases test_steady test_cidr test_lathist test_cli test_rpm
UNIT_TESTS += test_xsdcheck
UNIT_TESTS += test_suggest test_itype
LIB_SRC += lib/names/suggest.c lib/xml/xmlhint.c lib/names/itype.c
UNIT_TESTS += test_atomicfile test_textesc test_cost test_sqlrow test_jsonr
UNIT_TESTS += test_cost_transfer
ITESTS += tests/integration/atomic_outputs.sh tests/integration/runs_readonly.sh
ITESTS += tests/integration/xsd_callers.sh
