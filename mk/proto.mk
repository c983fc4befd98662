# runner/proto: the probe model (parameters, results), the control protocol's wire format and
# the probe result's JSON (written and read).
LIB_SRC += runner/proto/codec.c runner/proto/fields.c runner/proto/params.c runner/proto/proto.c runner/proto/result_json.c \
	runner/proto/result_parse.c runner/proto/result_wire.c runner/proto/dscp.c runner/proto/auth.c runner/proto/iperf3_json.c
UNIT_TESTS += test_proto test_params test_result_json test_fields test_auth test_result_wire
