/// What SQLite reported when a call failed, before the owning module turns it into its own error.
///
/// `SQLiteConnection` is shared by `EnrichmentCache` and `PushRelay`; each maps this value onto
/// its typed error (`CacheError`, `PushRelayError`) with the closure it opens the connection with.
package struct SQLiteFailure: Sendable {
  /// The extended result code.
  package let status: Int32
  /// `sqlite3_errmsg`, prefixed with the path when opening failed.
  package let message: String
  /// True when the database could not be opened at all.
  package let opening: Bool

  /// True for `SQLITE_BUSY` and `SQLITE_LOCKED`: another connection holds the lock.
  package var isBusy: Bool { status & 0xFF == 5 || status & 0xFF == 6 }
  /// True for a constraint violation (`SQLITE_CONSTRAINT_*`).
  package var isConstraint: Bool { status & 0xFF == 19 }
  /// True when the file is damaged or not a database (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
  package var isCorrupt: Bool { status & 0xFF == 11 || status & 0xFF == 26 }
}
