# report/placement: heatmaps (host x host, zone x zone) and steadiness over nights — their
# rows and findings; the report's section is report/render/content_placement.c.
LIB_SRC += report/placement/placement.c report/render/content_placement.c
UNIT_TESTS += test_placement
# the site's band chart on a pair's page (report/site/site_band.c: beside the site's charts)
LIB_SRC += report/site/site_band.c
ITESTS += tests/integration/run_nights.sh
