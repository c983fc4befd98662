/* store_read: the results database opened for reading only, as `report` and `runs` read it —
 * never created, never written (read-only media, another user's folder, a chmod 0444 file),
 * and an older schema read through the migration ladder on an in-memory copy, so the reader
 * sees the current schema's tables and views while the file stays byte for byte. */
#ifndef NS_STORE_READ_H
#define NS_STORE_READ_H

#include "lib/err.h"

struct sqlite3;

/* Opens path read-only; a missing file or one without the netsweep tables is an error (the
 * runner creates databases, readers never do), and so is a newer schema version (NS_E_INPUT).
 * An older one is copied into memory and migrated there: *db is then the copy. */
int ns_store_open_read(const char *path, struct sqlite3 **db, struct ns_err *err);

#endif
