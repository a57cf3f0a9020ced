import PushRelay

/// Why one PostgreSQL operation failed: the server's SQLSTATE (nil when the connection itself
/// failed), the constraint it names, its text, and whether the connection was lost.
///
/// The stores turn it into a `PushRelayError` (code `storage`, the SQLSTATE as its
/// `storageDiagnostic`) at their
/// public edge; inside, the SQLSTATE decides: a lock timeout, deadlock or serialization failure is
/// retried, a 23xxx during an accept is the lease's fault.
package struct PostgresFailure: Error, Sendable {
  /// The five-character SQLSTATE, nil when no server answer carried one.
  package var sqlState: String?
  /// The constraint the error names (`push_lease_endpoint`), if any.
  package var constraint: String?
  /// The server's or libpq's message.
  package var message: String
  /// Whether the connection is gone (the next use reconnects).
  package var connectionLost: Bool
  /// The `PushRelayError` code to report instead of `storage` (`unsupported_schema`).
  package var relayCode: PushRelayError.Code? = nil

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

  /// The `PushRelayError` a relay answers `error: internal server error` for: code `storage`, no
  /// field, the SQLSTATE as its `storageDiagnostic` and in the message.
  package var relayError: PushRelayError {
    PushRelayError(
      code: relayCode ?? .storage,
      message: "PostgreSQL \(sqlState ?? (connectionLost ? "connection" : "client")): \(message)",
      detail: sqlState.map(StorageDiagnostic.sqlState))
  }
}

extension PostgresFailure: CustomStringConvertible {
  /// The `PushRelayError` text: field, message, code.
  package var description: String { relayError.description }
}
