# runner/catalog: the instance/price catalog (load, lookup), `catalog import` from providers'
# price lists, and `netsweep cost`.
LIB_SRC += lib/catalog/catalog.c runner/catalog/catalog_import.c \
	runner/catalog/catalog_import_clouds.c runner/catalog/catalog_import_transfer.c \
	runner/catalog/cmd_catalog.c runner/catalog/cmd_cost.c
UNIT_TESTS += test_catalog test_catalog_transfer
ITESTS += tests/integration/catalog_import.sh tests/integration/catalog_clouds.sh tests/integration/catalog_shipped.sh \
	tests/integration/cost_types.sh tests/integration/catalog_transfer.sh tests/integration/cost_transfer.sh
BENCHES += tests/bench/catalog_load.sh
