# tests/lib, tests/bpf and tests/bench: the namespace harness, BPF drop classifier, benchmarks.
