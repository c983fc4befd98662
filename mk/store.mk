# runner/store: the SQLite store: runs, cases, NIC rows, catalog rows, leases; `db merge` and `runs`.
LIB_SRC += runner/store/store_sql.c runner/store/store.c runner/store/store_nic.c runner/store/store_catalog.c runner/store/store_limit.c runner/store/store_group.c \
	runner/store/store_latency.c runner/store/lease.c runner/store/store_hooks.c runner/store/admin/store_merge.c runner/store/admin/store_prune.c runner/store/admin/store_runs.c runner/store/admin/cmd_db.c runner/store/admin/cmd_runs.c
UNIT_TESTS += test_store test_lease test_store_hooks
ITESTS += tests/integration/runs_merge.sh tests/integration/store_storage.sh
ITESTS += tests/integration/db_prune.sh
