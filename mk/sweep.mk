# runner/sweep: matrix files, expansion, the runner, the SQLite store (issue 3).
LIB_SRC += runner/sweep/cmd_run.c
