#include "textesc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (1..4), or 0 when s[0] does not start one. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range, narrowed below */
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0; /* overlong */
		if (c == 0xed)
			hi = 0x9f; /* UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f; /* past U+10FFFF */
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* What one character at s becomes: its escape in esc (returns the bytes of s it takes), or
 * esc left empty when the character is kept as it is. */
static size_t one(const unsigned char *s, char esc[8], unsigned flags)
{
	unsigned char c = s[0];
	esc[0] = '\0';
	if (c >= 0x20 && c < 0x7f)
		return 1;
	if (c == '\n' || c == '\r' || c == '\t') {
		if (flags & TEXTESC_KEEP_SPACE)
			return 1;
		snprintf(esc, 8, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
		return 1;
	}
	if (c < 0x80) {
		snprintf(esc, 8, "\\x%02x", c);
		return 1;
	}
	size_t n = utf8_len(s);
	if (n == 0) {
		snprintf(esc, 8, "\\x%02x", c);
		return 1;
	}
	if (c == 0xc2 && s[1] < 0xa0) /* U+0080..U+009F */
		snprintf(esc, 8, "\\u%04x", s[1]);
	if (c == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf)) /* U+FFFE, U+FFFF */
		snprintf(esc, 8, "\\uff%02x", s[2] == 0xbe ? 0xfe : 0xff);
	return n;
}

size_t textesc_step(const char *s, char esc[8], unsigned flags)
{
	return one((const unsigned char *)s, esc, flags);
}

size_t textesc_f(char *out, size_t cap, const char *s, unsigned flags)
{
	size_t need = 0, used = 0;
	bool cut = false;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		char esc[8];
		size_t take = one(p, esc, flags);
		const char *piece = esc[0] ? esc : (const char *)p;
		size_t len = esc[0] ? strlen(esc) : take;
		if (!cut && used + len < cap) {
			memcpy(out + used, piece, len);
			used += len;
		} else {
			cut = true; /* nothing after the first piece that does not fit */
		}
		need += len;
		p += take;
	}
	if (cap > 0)
		out[used] = '\0';
	return need;
}

char *textesc_dup_f(const char *s, unsigned flags)
{
	if (!s)
		return NULL;
	size_t n = textesc_f(NULL, 0, s, flags);
	char *out = malloc(n + 1);
	if (out)
		textesc_f(out, n + 1, s, flags);
	return out;
}

bool textesc_needed_f(const char *s, unsigned flags)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		char esc[8];
		p += one(p, esc, flags);
		if (esc[0])
			return true;
	}
	return false;
}

size_t textesc(char *out, size_t cap, const char *s) { return textesc_f(out, cap, s, 0); }
char *textesc_dup(const char *s) { return textesc_dup_f(s, 0); }
bool textesc_needed(const char *s) { return textesc_needed_f(s, 0); }
