// libpq's C API, plus static inline shims for what Swift cannot import directly.
#ifndef NOSTRPUSHKIT_CLIBPQ_SHIM_H
#define NOSTRPUSHKIT_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#include <postgres_ext.h>

/// PG_DIAG_SQLSTATE is a character literal macro, which Swift does not import.
static inline int nostrpush_pg_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
/// PG_DIAG_CONSTRAINT_NAME, likewise.
static inline int nostrpush_pg_diag_constraint(void) { return PG_DIAG_CONSTRAINT_NAME; }
/// PG_DIAG_MESSAGE_PRIMARY, likewise.
static inline int nostrpush_pg_diag_message(void) { return PG_DIAG_MESSAGE_PRIMARY; }
#endif
