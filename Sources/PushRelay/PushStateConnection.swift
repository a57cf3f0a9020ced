import _NostrSQLite

/// The push state file's SQLite connection: the package's one wrapper, failing with
/// `PushRelayError.storage` (field `state` when the file cannot be opened; a constraint
/// violation's diagnostic is ``StorageDiagnostic/constraint``).
typealias PushStateConnection = SQLiteConnection<PushRelayError>

extension SQLiteConnection where Failure == PushRelayError {
  /// Opens the push state file at `path` with a busy timeout.
  convenience init(statePath path: String, busyTimeoutMilliseconds: Int32) throws(PushRelayError) {
    try self.init(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds) { failure in
      if failure.opening { return PushRelayError(code: .storage, field: "state", message: failure.message) }
      return PushRelayError(
        code: .storage, message: "SQLite \(failure.status): \(failure.message)",
        detail: failure.kind == .constraint ? .constraint : nil)
    }
  }

  /// Whether `error` is a constraint violation (`SQLITE_CONSTRAINT_*`).
  static func isConstraint(_ error: PushRelayError) -> Bool { error.storageDiagnostic == .constraint }
}
