# report/placement: heatmaps (host x host, zone x zone) and steadiness over nights — their
# rows, findings and the report's section.
LIB_SRC += report/placement/placement.c report/placement/placement_section.c
