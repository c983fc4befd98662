# report/: everything after the database. Includes lib/ and its own headers, never runner/.
LIB_SRC += report/cmd_report.c report/pipeline.c report/model/fmt.c report/render/hdoc.c report/analyze/news.c report/render/content_tables.c report/render/content_cells.c report/render/content_cost.c report/render/content_group.c report/charts/charts_gp.c report/charts/charts_series.c report/render/json_out.c report/analyze/changepoint.c report/analyze/history.c report/analyze/ab.c report/model/stats.c report/load/data.c \
           report/analyze/cost_rank.c report/analyze/burst.c report/analyze/compare.c report/model/describe.c report/model/data.c report/analyze/findings.c report/charts/charts.c \
           report/render/html.c report/render/markdown.c report/render/csv.c report/load/result_rows.c report/load/search_rows.c report/charts/search_chart.c report/load/lab_runs.c report/load/price/reprice.c \
           report/load/phase_rows.c report/load/rundb.c report/analyze/latency_analysis.c report/load/latency_rows.c report/charts/latency_chart.c report/load/loadlat.c report/render/content.c
UNIT_TESTS += test_stats test_fmt test_cost_rank test_data test_changepoint test_site_night test_report_plan test_export_volume
ITESTS += tests/integration/docs_self_contained.sh tests/integration/report_html.sh tests/integration/report_news.sh tests/integration/report_layout.sh tests/integration/report_json.sh tests/integration/report_history.sh tests/integration/report_ab.sh tests/integration/run_rank_by.sh tests/integration/report_m4.sh \
          tests/integration/report_compare.sh tests/integration/report_nognuplot.sh \
          tests/integration/report_e2e.sh tests/integration/report_tbf.sh tests/integration/report_sections.sh
BENCHES += tests/bench/report_scale.sh
LIB_SRC += report/load/provider.c report/load/price/pricing.c report/analyze/advertised.c report/load/itypes.c report/load/limits.c
UNIT_TESTS += test_provider test_limits
ITESTS += tests/integration/report_provider.sh tests/integration/report_pricing.sh
ITESTS += tests/integration/report_currency.sh tests/integration/report_burst.sh
ITESTS += tests/integration/report_lab_exports.sh
LIB_SRC += report/render/export.c report/load/export_rows.c report/cmd_export.c report/cmd_plan.c report/analyze/plan.c
ITESTS += tests/integration/export_metrics.sh
# report/site/: `netsweep site`, the static results site over every night.
LIB_SRC += report/site/site.c report/site/site_night.c report/site/site_pages.c report/site/site_charts.c report/site/site_feed.c report/site/cmd_site.c
ITESTS += tests/integration/site.sh tests/integration/hostile_text.sh
ITESTS += tests/integration/site_lint.sh
ITESTS += tests/integration/export_iperf3.sh
# The year-of-nights store generator (tests/bench/year.sh, tests/integration/db_prune.sh).
YEAR_STORE := $(BUILD)/tests/year_store
EXTRA_TARGETS += $(YEAR_STORE)
# (the library by its name: $(LIB) is set after the mk files are read)
$(YEAR_STORE): tests/bench/year_store.c $(BUILD)/libnetsweep.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libnetsweep.a $(LDLIBS)
BENCHES += tests/bench/year.sh
