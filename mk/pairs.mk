# runner/pairs: where a run's pairs come from besides the matrix's listed hosts — the embedded
# loopback agent, the lab's emulated pairs, a Kubernetes cluster's pods. A new source (a mesh,
# a cloud inventory) is a file here.
LIB_SRC += runner/pairs/loopback.c runner/pairs/labpairs.c runner/pairs/kubepairs.c
UNIT_TESTS += test_kubepairs test_labpairs
