/* datadir: where netsweep's shipped data (catalog/, matrices/, provision/, schemas/) lives.
 * An installed binary finds it next to itself, PREFIX/bin/netsweep -> PREFIX/share/netsweep,
 * so a package or a DESTDIR copy works wherever it lands; a binary in the source tree's
 * build folder falls back to the source tree's data/ (NETSWEEP_DATADIR, set by the Makefile). */
#ifndef NS_DATADIR_H
#define NS_DATADIR_H

#include <stddef.h>

/* The data folder, without a trailing slash; computed once, never NULL. */
const char *ns_datadir(void);

/* The data folder of a binary at exe_path, if PREFIX/share/netsweep exists next to it: fills
 * buf and returns 0, else -1 (for tests; ns_datadir uses /proc/self/exe). */
int ns_datadir_for(const char *exe_path, char *buf, size_t len);

#endif
