/* textesc: a stored string (a run's label, a matrix or pair name, an error text, a hook's
 * output) made safe to show on a terminal or in a CSV cell. Control characters become visible
 * escapes: newline \n, CR \r, tab \t, ESC \x1b and every other C0 byte or DEL \xNN; the C1
 * controls U+0080..U+009F, which terminals obey as escape sequences, \u0080..\u009f; a byte
 * that is not part of valid UTF-8 \xNN. Printable text, UTF-8 included, is left as it is, and
 * so is a backslash: the result is for people to read, not to parse back. */
#ifndef NS_TEXTESC_H
#define NS_TEXTESC_H

#include <stdbool.h>
#include <stddef.h>

/* s escaped into out (cap bytes, always NUL-terminated when cap > 0; cut before an escape or
 * character that does not fit whole). Returns the length the whole result needs, as snprintf
 * does. A NULL s is "". */
size_t textesc(char *out, size_t cap, const char *s);

/* The escaped copy of s, malloc'd (NULL for a NULL s or out of memory). */
char *textesc_dup(const char *s);

/* Whether s holds anything textesc would change. */
bool textesc_needed(const char *s);

#endif
