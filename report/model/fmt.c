/* fmt: see fmt.h. */
#include "report/model/fmt.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/textesc.h"

void rp_buf_init(struct rp_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void rp_buf_free(struct rp_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

void rp_buf_reset(struct rp_buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

static int buf_reserve(struct rp_buf *b, size_t extra)
{
	if (b->oom)
		return -1;
	if (b->len + extra + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		b->oom = 1;
		return -1;
	}
	b->s = s;
	b->cap = cap;
	return 0;
}

void rp_buf_add(struct rp_buf *b, const char *s, size_t n)
{
	if (buf_reserve(b, n) < 0)
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void rp_buf_puts(struct rp_buf *b, const char *s)
{
	if (s)
		rp_buf_add(b, s, strlen(s));
}

void rp_buf_printf(struct rp_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_reserve(b, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *rp_buf_str(const struct rp_buf *b)
{
	return b->s ? b->s : "";
}

void rp_md_escape(struct rp_buf *b, const char *s)
{
	if (!s)
		return;
	for (size_t take; *s; s += take) {
		/* control characters and bytes that are not UTF-8 as lib/textesc.h shows them */
		char esc[8];
		take = textesc_step(s, esc, TEXTESC_KEEP_SPACE);
		if (esc[0]) {
			rp_buf_puts(b, "\\");
			rp_buf_puts(b, esc);
			continue;
		}
		if (take > 1) {
			rp_buf_add(b, s, take);
			continue;
		}
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '<': rp_buf_puts(b, "&lt;"); break;
		case '>': rp_buf_puts(b, "&gt;"); break;
		case '&': rp_buf_puts(b, "&amp;"); break;
		case '"': rp_buf_puts(b, "&quot;"); break;
		case '\n': case '\r': case '\t': rp_buf_add(b, " ", 1); break;
		/* ( ) and ! only matter next to [ ], which are escaped. */
		case '\\': case '`': case '*': case '_': case '[': case ']': case '#': case '|':
		case '~':
			rp_buf_add(b, "\\", 1);
			rp_buf_add(b, s, 1);
			break;
		default:
			rp_buf_add(b, s, 1);
		}
	}
}

void rp_csv_field(struct rp_buf *b, const char *raw)
{
	if (!raw)
		return;
	/* control characters shown as escapes (lib/textesc.h): a label's ESC[31m or newline
	 * neither drives a terminal showing the file nor splits a row for a naive reader */
	char *esc = textesc_needed(raw) ? textesc_dup(raw) : NULL;
	if (textesc_needed(raw) && !esc) {
		b->oom = 1;
		return;
	}
	const char *s = esc ? esc : raw;
	/* A spreadsheet may run a field starting with = + - @ (or a tab or CR before one) as a
	 * formula: such a field is prefixed with ' unless strtod reads all of it as a number
	 * ("-1.5", "+3"), which "-1+1+cmd|..." is not. */
	int formula = s[0] != '\0' && strchr("=+-@\t\r", s[0]) != NULL;
	if (formula && (s[0] == '+' || s[0] == '-')) {
		char *end;
		(void)strtod(s, &end);
		formula = *end != '\0';
	}
	int quote = formula || strpbrk(s, ",\"\r\n") != NULL;
	if (!quote) {
		rp_buf_puts(b, s);
		free(esc);
		return;
	}
	rp_buf_add(b, "\"", 1);
	if (formula)
		rp_buf_add(b, "'", 1);
	for (; *s; s++) {
		if (*s == '"')
			rp_buf_add(b, "\"", 1);
		rp_buf_add(b, s, 1);
	}
	rp_buf_add(b, "\"", 1);
	free(esc);
}

void rp_gp_quote(struct rp_buf *b, const char *s)
{
	rp_buf_add(b, "'", 1);
	for (size_t take; s && *s; s += take) {
		/* control characters and bytes that are not UTF-8 shown as escapes (lib/textesc.h):
		 * gnuplot copies the text into the SVG, which must stay UTF-8 XML */
		char esc[8];
		take = textesc_step(s, esc, 0);
		if (*s == '\'')
			rp_buf_add(b, "'", 1);
		if (esc[0])
			rp_buf_puts(b, esc);
		else
			rp_buf_add(b, s, take);
	}
	rp_buf_add(b, "'", 1);
}

static void fmt_si(char *out, size_t n, double v, const char *const units[4])
{
	int u = 0;
	double a = fabs(v);
	if (a >= 1e9) { v /= 1e9; u = 3; }
	else if (a >= 1e6) { v /= 1e6; u = 2; }
	else if (a >= 1e3) { v /= 1e3; u = 1; }
	a = fabs(v);
	if (!isfinite(v))
		snprintf(out, n, "n/a");
	else if (a >= 100 || v == 0)
		snprintf(out, n, "%.0f %s", v, units[u]);
	else if (a >= 10)
		snprintf(out, n, "%.1f %s", v, units[u]);
	else
		snprintf(out, n, "%.2f %s", v, units[u]);
}

void rp_fmt_bps(char *out, size_t n, double bps)
{
	static const char *const units[4] = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s"};
	fmt_si(out, n, bps, units);
}

struct rp_unit rp_unit_for(double max_bps)
{
	if (max_bps >= 10e9)
		return (struct rp_unit){1e9, "Gbit/s"};
	return (struct rp_unit){1e6, "Mbit/s"};
}

void rp_fmt_in(char *out, size_t n, double bps, struct rp_unit u)
{
	double v = bps / u.div, a = fabs(v);
	if (!isfinite(v))
		snprintf(out, n, "n/a");
	else if (a >= 100 || v == 0)
		snprintf(out, n, "%.0f %s", v, u.name);
	else if (a >= 10)
		snprintf(out, n, "%.1f %s", v, u.name);
	else
		snprintf(out, n, "%.2f %s", v, u.name);
}

void rp_fmt_pps(char *out, size_t n, double pps)
{
	static const char *const units[4] = {"pps", "kpps", "Mpps", "Gpps"};
	fmt_si(out, n, pps, units);
}

void rp_fmt_rate_opt(char *out, size_t n, long long bps)
{
	if (bps != 0 && bps % 1000000000LL == 0)
		snprintf(out, n, "%lldG", bps / 1000000000LL);
	else if (bps != 0 && bps % 1000000LL == 0)
		snprintf(out, n, "%lldM", bps / 1000000LL);
	else if (bps != 0 && bps % 1000LL == 0)
		snprintf(out, n, "%lldk", bps / 1000LL);
	else
		snprintf(out, n, "%lld", bps);
}

void rp_fmt_range(char *out, size_t n, double lo, double hi, struct rp_unit u)
{
	char x[32], y[32];
	if (isnan(lo)) {
		snprintf(out, n, "–");
		return;
	}
	rp_fmt_in(x, sizeof(x), lo, u);
	rp_fmt_in(y, sizeof(y), hi, u);
	const char *ux = strchr(x, ' '), *uy = strchr(y, ' ');
	if (ux && uy && !strcmp(ux, uy))
		snprintf(out, n, "%.*s–%s", (int)(ux - x), x, y);
	else
		snprintf(out, n, "%s–%s", x, y);
}

static const struct {
	const char *code, *sym, *word;
} money[] = {
	{"USD", "$", "dollar"}, {"EUR", "€", "euro"}, {"GBP", "£", "pound"}, {"JPY", "¥", "yen"},
};

const char *rp_money_code(const char *currency)
{
	return currency ? currency : "USD";
}

int rp_money_same(const char *a, const char *b)
{
	return strcmp(rp_money_code(a), rp_money_code(b)) == 0;
}

int rp_money_code_ok(const char *currency)
{
	const char *c = rp_money_code(currency);
	return strlen(c) == 3 && strspn(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == 3;
}

/* The row of a currency in money[], or -1. */
static int money_row(const char *currency)
{
	const char *c = rp_money_code(currency);
	for (size_t i = 0; i < sizeof(money) / sizeof(money[0]); i++)
		if (!strcmp(c, money[i].code))
			return (int)i;
	return -1;
}

const char *rp_money(const char *currency)
{
	int i = money_row(currency);
	/* the database is input: only a code goes into a page, a format or a gnuplot string */
	return i >= 0 ? money[i].sym : rp_money_code_ok(currency) ? currency : "¤";
}

const char *rp_money_word(const char *currency)
{
	int i = money_row(currency);
	return i >= 0 ? money[i].word : rp_money_code_ok(currency) ? currency : "unit of its currency";
}

void rp_fmt_money(char *out, size_t n, const char *num_fmt, double v, const char *currency)
{
	if (!isfinite(v)) {
		snprintf(out, n, "–");
		return;
	}
	char num[64];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(num, sizeof(num), num_fmt, v);
#pragma GCC diagnostic pop
	const char *sym = rp_money(currency);
	/* a symbol sticks to the figure, a code stands apart from it */
	snprintf(out, n, "%s%s%s", sym, strlen(sym) == 3 && rp_money_code_ok(sym) ? " " : "", num);
}

void rp_fmt_per_money(char *out, size_t n, const char *currency)
{
	snprintf(out, n, "Mbit/s per %s/hour", rp_money(currency));
}
