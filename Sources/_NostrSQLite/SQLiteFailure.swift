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

  /// What kind of failure the primary result code is.
  package enum Kind: Sendable {
    /// `SQLITE_BUSY`: another connection holds the lock past the busy timeout.
    case busy
    /// `SQLITE_LOCKED`: a table is locked within this process.
    case locked
    /// `SQLITE_CORRUPT` or `SQLITE_NOTADB`: the file is damaged or not a database.
    case corrupt
    /// `SQLITE_CONSTRAINT_*`: a constraint refused the write.
    case constraint
    /// Anything else.
    case other
  }

  /// The kind of the primary result code (`status & 0xFF`).
  package var kind: Kind {
    switch status & 0xFF {
    case 5: .busy
    case 6: .locked
    case 11, 26: .corrupt
    case 19: .constraint
    default: .other
    }
  }
}
