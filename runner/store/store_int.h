/* store_int: for runner/store/ only — the connection behind a struct store and the mutex that
 * serialises every use of it, for the store's files above store.c (lease.c, store_catalog.c,
 * store_hooks.c). Nothing outside runner/store/ includes it: whoever needs SQL gets a
 * function of the store. */
#ifndef NS_STORE_INT_H
#define NS_STORE_INT_H

#include <sqlite3.h>

#include "store.h"
#include "store_sql.h"

sqlite3 *store_db(struct store *s);
void store_lock(struct store *s);
void store_unlock(struct store *s);

#endif
