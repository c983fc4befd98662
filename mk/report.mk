# report/: everything after the database (issue 5). Never includes runner/ code but cmds.h.
LIB_SRC += report/cmd_report.c
