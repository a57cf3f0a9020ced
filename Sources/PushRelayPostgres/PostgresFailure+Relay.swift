import PushRelay
import _NostrPostgres

extension PostgresFailure {
  /// The `PushRelayError` a relay answers `error: internal server error` for: code `storage`
  /// (`unsupported_schema` for a newer schema), no field, the SQLSTATE as its
  /// `storageDiagnostic` and in the message.
  package var relayError: PushRelayError {
    PushRelayError(
      code: newerSchema ? .unsupportedSchema : .storage, message: description,
      detail: sqlState.map(StorageDiagnostic.sqlState))
  }
}
