# runner/lab: instance pairs emulated in network namespaces (`netsweep lab`).
LIB_SRC += runner/lab/shape.c runner/lab/labnet.c runner/lab/lab.c runner/lab/cmd_lab.c
UNIT_TESTS += test_shape
ITESTS += tests/integration/lab.sh tests/integration/lab_key.sh tests/integration/lab_incast.sh tests/integration/lab_placement.sh
