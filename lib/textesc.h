/* textesc: a stored string (a run's label, a matrix or pair name, an error text, a hook's
 * output) made safe to show on a terminal or in a CSV cell. Control characters become visible
 * escapes: newline \n, CR \r, tab \t, ESC \x1b and every other C0 byte or DEL \xNN; the C1
 * controls U+0080..U+009F, which terminals obey as escape sequences, \u0080..\u009f; a byte
 * that is not part of valid UTF-8 \xNN. Printable text, UTF-8 included, is left as it is, and
 * so is a backslash: the result is for people to read, not to parse back. The noncharacters
 * U+FFFE and U+FFFF, which XML 1.0 forbids, become \ufffe and \uffff.
 *
 * It is the one sanitiser of stored text for every format: terminals and CSV (textesc),
 * XML 1.0 and HTML (report/render/hdoc.c's hd_save runs every text and attribute of a document
 * through textesc_f with TEXTESC_KEEP_SPACE before writing it), JSON (lib/jsonw.c: a byte that
 * is not UTF-8 becomes the text \xNN) and Markdown and gnuplot (report/model/fmt.c). Its output
 * is valid UTF-8 with no character XML 1.0 forbids. */
#ifndef NS_TEXTESC_H
#define NS_TEXTESC_H

#include <stdbool.h>
#include <stddef.h>

/* Flags of the _f forms. TEXTESC_KEEP_SPACE keeps newline, CR and tab as they are (they are
 * text in XML, HTML and JSON). */
#define TEXTESC_KEEP_SPACE 1u

/* One character at s (a non-empty string): the bytes it takes (1..4) and, in esc, its escape,
 * or esc empty when the character stays as it is. */
size_t textesc_step(const char *s, char esc[8], unsigned flags);

/* s escaped into out (cap bytes, always NUL-terminated when cap > 0; cut before an escape or
 * character that does not fit whole). Returns the length the whole result needs, as snprintf
 * does. A NULL s is "". */
size_t textesc(char *out, size_t cap, const char *s);

/* The escaped copy of s, malloc'd (NULL for a NULL s or out of memory). */
char *textesc_dup(const char *s);

/* Whether s holds anything textesc would change. */
bool textesc_needed(const char *s);

/* The same with flags. */
size_t textesc_f(char *out, size_t cap, const char *s, unsigned flags);
char *textesc_dup_f(const char *s, unsigned flags);
bool textesc_needed_f(const char *s, unsigned flags);

#endif
