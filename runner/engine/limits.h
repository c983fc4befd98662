/* limits: what one test may ask of the data plane — stream and thread counts, lengths, the
 * longest duration — and the transport. The engine enforces them; the probe model, the control
 * protocol and the matrix loader share them from here, one layer below all of them. */
#ifndef NS_LIMITS_H
#define NS_LIMITS_H

#define NS_MAX_STREAMS 1024
#define NS_MAX_THREADS 256
#define NS_MAX_DURATION_S 86400.0
#define NS_UDP_MIN_LEN 16
#define NS_UDP_MAX_LEN 65507
#define NS_TCP_DEFAULT_LEN (128 * 1024)
#define NS_UDP_DEFAULT_LEN 1460
#define NS_TCP_MAX_LEN (16 * 1024 * 1024)

/* NS_PROTO_QUIC: QUIC (runner/quic, on ngtcp2) over UDP sockets, set up as UDP's are */
enum ns_proto { NS_PROTO_TCP = 0, NS_PROTO_UDP = 1, NS_PROTO_QUIC = 2 };
/* Whether a protocol's data sockets are UDP ones (UDP, and QUIC over UDP). */
#define NS_PROTO_DGRAM(p) ((p) == NS_PROTO_UDP || (p) == NS_PROTO_QUIC)
enum ns_dir { NS_DIR_FORWARD = 0, NS_DIR_REVERSE = 1, NS_DIR_BIDIR = 2 };

#endif
