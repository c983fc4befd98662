/* imds: the EC2 instance metadata service, IMDSv2 only (a token from PUT /latest/api/token,
 * then GETs carrying it). A minimal HTTP/1.1 client with one overall deadline and bounded
 * responses: a host that is not on EC2 must cost at most the timeout, never a hang. */
#ifndef NS_IMDS_H
#define NS_IMDS_H

#include <stddef.h>

#include "lib/err.h"

#define IMDS_DEFAULT_ADDR "169.254.169.254:80"
#define IMDS_MAX_RESPONSE 8192 /* headers + body; the real answers are a few hundred bytes */

struct imds_info {
	char instance_type[64]; /* "c5n.18xlarge" */
	char region[32];        /* "ap-northeast-1" */
	char availability_zone[32];
};

/* Queries addr ("H:P", IPv4 "1.2.3.4:80" or "[::1]:80") within timeout_s seconds in all. */
int imds_query(const char *addr, double timeout_s, struct imds_info *out, struct ns_err *err);

/* Splits an HTTP/1.x response: status code and body (pointing into buf). Rejects chunked
 * bodies and bodies shorter than their Content-Length. Exposed for tests. */
int imds_parse_response(const char *buf, size_t len, int *status, const char **body,
			size_t *body_len, struct ns_err *err);

#endif
