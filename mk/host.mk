# runner/host: host and NIC discovery, IMDSv2, instance catalog, cost, wire rate (issue 4).
LIB_SRC += runner/host/cmd_hostinfo.c runner/host/cmd_cost.c
