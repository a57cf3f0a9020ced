// SQLite's C API, plus static inline shims for what Swift cannot import directly.
#ifndef NOSTRPUSHKIT_CSQLITE_SHIM_H
#define NOSTRPUSHKIT_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot express.
static inline sqlite3_destructor_type nostrpush_sqlite_transient(void) {
  return SQLITE_TRANSIENT;
}
#endif
