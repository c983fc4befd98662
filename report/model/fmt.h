/* fmt: text helpers shared by the report writers — a growable string buffer, the escapers
 * for Markdown, CSV and gnuplot string literals (HTML is escaped by libxml2's tree), and
 * number formatting with units. Every string from the database passes through one of these. */
#ifndef RP_FMT_H
#define RP_FMT_H

#include <stddef.h>

struct rp_buf {
	char *s;     /* NUL-terminated, never NULL after the first append */
	size_t len;
	size_t cap;
	int oom;     /* set once an allocation failed; later appends are ignored */
};

void rp_buf_init(struct rp_buf *b);
void rp_buf_free(struct rp_buf *b);
void rp_buf_reset(struct rp_buf *b);
void rp_buf_add(struct rp_buf *b, const char *s, size_t n);
void rp_buf_puts(struct rp_buf *b, const char *s);
void rp_buf_printf(struct rp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The buffer's text ("" when empty). */
const char *rp_buf_str(const struct rp_buf *b);

/* Markdown inline text: HTML-significant characters become entities (Markdown renderers pass
 * raw HTML through), Markdown punctuation and table pipes are backslash-escaped, newlines
 * become spaces, other control characters and bytes that are not UTF-8 lib/textesc.h's escapes
 * (their backslash escaped). NULL appends nothing. */
void rp_md_escape(struct rp_buf *b, const char *s);
/* RFC 4180 field: quoted when it holds a comma, quote, CR or LF (quotes doubled). Fields that
 * start with = + - @ get a leading apostrophe inside quotes so spreadsheets do not run them. */
void rp_csv_field(struct rp_buf *b, const char *s);
/* gnuplot single-quoted string literal: ' doubled, control characters and bytes that are not
 * UTF-8 shown as lib/textesc.h's escapes. */
void rp_gp_quote(struct rp_buf *b, const char *s);

/* "436 Mbit/s", "23.5 Gbit/s", "980 kbit/s"; three significant digits. */
void rp_fmt_bps(char *out, size_t n, double bps);
/* One throughput unit for a whole page, so that tables, findings and charts agree: Gbit/s
 * when the largest figure shown reaches 10 Gbit/s, else Mbit/s. */
struct rp_unit {
	double div;               /* bits/s per unit */
	const char *name;         /* "Mbit/s" or "Gbit/s" */
};
struct rp_unit rp_unit_for(double max_bps);
/* bps in unit u: 3 significant figures, at least the units digit ("438 Mbit/s", "1400 Mbit/s",
 * "9.50 Gbit/s"); "n/a" when not finite. */
void rp_fmt_in(char *out, size_t n, double bps, struct rp_unit u);
/* A range in unit u: "9.40–9.60 Gbit/s" when both ends share a unit name, else
 * "800 Mbit/s–1.20 Gbit/s"; "–" when lo is not finite. */
void rp_fmt_range(char *out, size_t n, double lo, double hi, struct rp_unit u);
/* Like rp_fmt_bps for packets/s: "1.42 Mpps". */
void rp_fmt_pps(char *out, size_t n, double pps);
/* Bits/s as the CLI writes them in options: 800000000 -> "800M", 0 -> "0". */
void rp_fmt_rate_opt(char *out, size_t n, long long bps);

/* Money: the one way the report and the site write a price or a figure per price, so that
 * no figure in another currency ever reads as dollars. currency is a three-letter code; NULL
 * reads as USD (prices from before the store kept currencies were US dollars).
 * The symbol of a currency: "$" USD, "€" EUR, "£" GBP, "¥" JPY, else its code ("CHF"), "¤"
 * when that is not three upper-case letters. */
const char *rp_money(const char *currency);
/* The currency's code: "USD" for NULL, else currency itself. */
const char *rp_money_code(const char *currency);
/* Whether two prices are in the same currency (NULL = USD). */
int rp_money_same(const char *a, const char *b);
/* What one unit is called in a sentence: "dollar", "euro", "pound", "yen", else the code. */
const char *rp_money_word(const char *currency);
/* An amount: "$0.192", "€0.012", "CHF 0.5" — printf format num_fmt for the number ("%.4g");
 * "–" when v is not finite. */
void rp_fmt_money(char *out, size_t n, const char *num_fmt, double v, const char *currency);
/* The unit of a throughput per price: "Mbit/s per $/hour", "Mbit/s per €/hour". */
void rp_fmt_per_money(char *out, size_t n, const char *currency);
/* Only a three-letter upper-case code is a currency's code (the database is input). */
int rp_money_code_ok(const char *currency);

#endif
