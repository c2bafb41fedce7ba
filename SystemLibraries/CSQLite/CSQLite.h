// The system SQLite (Debian: libsqlite3-dev), for platforms whose SDK has no SQLite3 module.
#include <sqlite3.h>
