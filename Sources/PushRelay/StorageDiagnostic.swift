/// What the database said about a `storage` failure, beside the error's message: the detail of a
/// ``PushRelayError`` (``PushRelayError/storageDiagnostic``), never its `field`, which names a
/// field.
public enum StorageDiagnostic: Sendable, Hashable {
  /// SQLite refused a write for a constraint (`SQLITE_CONSTRAINT_*`).
  case constraint
  /// PostgreSQL answered with this five-character SQLSTATE (`23505`, `40001`, …).
  case sqlState(String)
}

extension DomainError where Domain == PushRelayErrorDomain {
  /// The database's diagnostic of a `storage` failure, when it gave one.
  public var storageDiagnostic: StorageDiagnostic? { detail }
}
