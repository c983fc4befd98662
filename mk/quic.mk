# runner/quic: the QUIC engine (ngtcp2 with GnuTLS crypto), above runner/engine, handed to it
# as an engine_transport by runner/session. Built when pkg-config finds ngtcp2, its GnuTLS
# crypto and GnuTLS; otherwise quic_none.c says, at use, that QUIC is unavailable, and
# everything else builds and works as before.
QUIC_PKGS := libngtcp2 libngtcp2_crypto_gnutls gnutls
QUIC_OK := $(shell pkg-config --exists $(QUIC_PKGS) 2>/dev/null && echo yes)
LIB_SRC += runner/quic/quic_hex.c
ifeq ($(QUIC_OK),yes)
LIB_SRC += runner/quic/quic_cert.c runner/quic/quic_conn.c runner/quic/quic_engine.c
override CFLAGS += $(shell pkg-config --cflags $(QUIC_PKGS))
LDLIBS += $(shell pkg-config --libs $(QUIC_PKGS))
UNIT_TESTS += test_quic
else
LIB_SRC += runner/quic/quic_none.c
$(info netsweep: ngtcp2/GnuTLS (pkg-config $(QUIC_PKGS)) missing: QUIC is not built)
endif
ITESTS += tests/integration/quic_netns.sh
BENCHES += tests/bench/quic.sh
