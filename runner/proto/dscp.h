/* dscp: the DiffServ code points engineers type (RFC 2474/2597/3246/5865 names: CS0-CS7,
 * AF11-AF43, EF, VOICE-ADMIT) and the TOS byte they become (DSCP << 2). The probe's --dscp and
 * -S and the matrix's dscp axis read them here, the report writes them back. */
#ifndef NS_DSCP_H
#define NS_DSCP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

/* NAME (case-insensitive) or a number 0..63 (decimal or 0x hex) -> TOS byte (DSCP << 2). */
int dscp_parse(const char *s, uint32_t *tos, struct ns_err *err);
/* -S/--tos: a whole TOS byte 0..255 (decimal, 0x hex or 0 octal, as iperf3 reads it). */
int dscp_parse_tos(const char *s, uint32_t *tos, struct ns_err *err);
/* The name of a DSCP value 0..63 ("EF", "AF41"), or its number when it has none. */
void dscp_name(uint32_t dscp, char *buf, size_t len);

#endif
