/* wire: the physical references results are compared with. An Ethernet frame of L bytes
 * occupies L + 20 bytes of line time (preamble 8, inter-frame gap 12); an untagged IPv4/UDP
 * datagram of P payload bytes makes a frame of P + 46 (Ethernet 14 + FCS 4 + IP 20 + UDP 8),
 * at least 64. TCP with timestamps carries MSS = MTU - 52 payload bytes per MTU + 38 bytes of
 * line time. Same formulas as the v_wire_rate view of schemas/store.sql. */
#ifndef NS_WIRE_H
#define NS_WIRE_H

#include <stdint.h>

#define WIRE_PREAMBLE_IFG 20
#define WIRE_UDP4_OVERHEAD 46
#define WIRE_MIN_FRAME 64
#define WIRE_TCP_TS_HEADERS 52   /* IP 20 + TCP 20 + timestamp option 12 */
#define WIRE_ETH_PER_PACKET 38   /* Ethernet 14 + FCS 4 + preamble/IFG 20 */

/* Frame of an untagged IPv4/UDP datagram with payload bytes (FCS included). */
uint64_t wire_udp4_frame_bytes(uint64_t payload);

/* Frames per second a link of link_bps carries back to back (0 for a zero frame). */
double wire_pps(double link_bps, uint64_t frame_bytes);

/* Line rate for UDP datagrams of payload bytes: datagrams/s and payload bits/s. */
double wire_udp4_pps(double link_bps, uint64_t payload);
double wire_udp4_goodput_bps(double link_bps, uint64_t payload);

/* Share of the line rate TCP payload can fill at that MTU (0 when MTU <= 52). */
double wire_tcp_share(int mtu);

#endif
