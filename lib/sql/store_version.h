/* store_version: the results database's schema version (PRAGMA user_version), shared by the
 * runner, which migrates a database up to it, and the report, which reads any version up to
 * it and refuses a newer one untouched. */
#ifndef NS_STORE_VERSION_H
#define NS_STORE_VERSION_H

#define NS_STORE_SCHEMA_VERSION 30

#endif
