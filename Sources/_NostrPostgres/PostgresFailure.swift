/// Why one PostgreSQL operation failed: the server's SQLSTATE (nil when the connection itself
/// failed), the constraint it names, its text, and whether the connection was lost.
///
/// Each store turns it into its module's typed error at its public edge (the relay's
/// `PushRelayError` with the SQLSTATE as its `storageDiagnostic`, the gateway's own); inside, the
/// SQLSTATE decides: a lock timeout, deadlock or serialization failure is retried, a 23xxx is the
/// caller's fault.
package struct PostgresFailure: Error, Sendable {
  /// The five-character SQLSTATE, nil when no server answer carried one.
  package var sqlState: String?
  /// The constraint the error names (`push_lease_endpoint`), if any.
  package var constraint: String?
  /// The server's or libpq's message.
  package var message: String
  /// Whether the connection is gone (the next use reconnects).
  package var connectionLost: Bool
  /// Whether the database's schema is newer than this code (``PostgresMigrator``).
  package var newerSchema = false

  /// A failure of this process's own making (a bound exceeded, a malformed value).
  package static func local(_ message: String) -> PostgresFailure {
    PostgresFailure(sqlState: nil, constraint: nil, message: message, connectionLost: false)
  }

  /// `lock_not_available` (a `lock_timeout`), `deadlock_detected` or `serialization_failure`:
  /// the transaction may be run again.
  package var isRetryable: Bool {
    sqlState == "55P03" || sqlState == "40P01" || sqlState == "40001"
  }

  /// An integrity constraint violation (class 23).
  package var isConstraint: Bool { sqlState?.hasPrefix("23") == true }

}

extension PostgresFailure: CustomStringConvertible {
  /// `PostgreSQL <SQLSTATE | connection | client>: message`.
  package var description: String {
    "PostgreSQL \(sqlState ?? (connectionLost ? "connection" : "client")): \(message)"
  }
}
