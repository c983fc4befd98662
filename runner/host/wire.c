#include "wire.h"

uint64_t wire_udp4_frame_bytes(uint64_t payload)
{
	uint64_t frame = payload + WIRE_UDP4_OVERHEAD;
	return frame < WIRE_MIN_FRAME ? WIRE_MIN_FRAME : frame;
}

double wire_pps(double link_bps, uint64_t frame_bytes)
{
	if (frame_bytes == 0 || !(link_bps > 0))
		return 0;
	return link_bps / ((double)(frame_bytes + WIRE_PREAMBLE_IFG) * 8.0);
}

double wire_udp4_pps(double link_bps, uint64_t payload)
{
	return wire_pps(link_bps, wire_udp4_frame_bytes(payload));
}

double wire_udp4_goodput_bps(double link_bps, uint64_t payload)
{
	return wire_udp4_pps(link_bps, payload) * (double)payload * 8.0;
}

double wire_tcp_share(int mtu)
{
	if (mtu <= WIRE_TCP_TS_HEADERS)
		return 0;
	return (double)(mtu - WIRE_TCP_TS_HEADERS) / (double)(mtu + WIRE_ETH_PER_PACKET);
}
