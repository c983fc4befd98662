/* amount: the end of a test that runs by amount (see amount.h). */
#include "amount.h"

bool amount_end_done(struct session_end *s, struct amount_watch *w, uint64_t amount,
		     uint32_t unit, double now)
{
	if (!s->eng)
		return false;
	if (s->role == ENGINE_SEND)
		return session_end_watch(s, now);
	if (engine_done(s->eng))
		return true;
	if (s->proto != NS_PROTO_UDP)
		return false;
	engine_snapshot(s->eng, s->cur);
	uint64_t seen = 0, packets = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		seen += s->cur[i].highest_seq_plus1;
		packets += s->cur[i].packets;
	}
	if (seen * (uint64_t)unit >= amount)
		return true;
	if (packets != w->last_packets || !(w->last_change > 0)) {
		w->last_packets = packets;
		w->last_change = now;
		return false;
	}
	return packets > 0 && now - w->last_change >= AMOUNT_UDP_QUIET_S;
}
