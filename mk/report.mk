# report/: everything after the database. Includes lib/ and its own headers, never runner/.
LIB_SRC += report/cmd_report.c report/fmt.c report/hdoc.c report/news.c report/html_news.c report/html_env.c report/charts_gp.c report/charts_series.c report/json_out.c report/changepoint.c report/history.c report/html_history.c report/ab.c report/html_ab.c report/stats.c report/data.c \
           report/cost.c report/compare.c report/describe.c report/findings.c report/charts.c \
           report/html.c report/markdown.c report/csv.c report/search.c report/lab.c report/reprice.c \
           report/phases.c report/rundb.c report/latency.c report/html_latency.c
UNIT_TESTS += test_report_stats test_report_fmt test_report_cost test_report_data test_report_changepoint
ITESTS += tests/integration/docs_self_contained.sh tests/integration/report_html.sh tests/integration/report_news.sh tests/integration/report_layout.sh tests/integration/report_json.sh tests/integration/report_history.sh tests/integration/report_ab.sh tests/integration/run_rank_by.sh tests/integration/report_m4.sh \
          tests/integration/report_compare.sh tests/integration/report_nognuplot.sh \
          tests/integration/report_e2e.sh tests/integration/report_tbf.sh
BENCHES += tests/bench/report_scale.sh
LIB_SRC += report/provider.c report/pricing.c report/advertised.c report/limits.c
UNIT_TESTS += test_report_provider test_report_limits
ITESTS += tests/integration/report_provider.sh tests/integration/report_pricing.sh
ITESTS += tests/integration/report_lab_exports.sh
LIB_SRC += report/export.c report/cmd_export.c
ITESTS += tests/integration/export_metrics.sh
