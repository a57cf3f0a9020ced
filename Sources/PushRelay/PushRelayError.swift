@_exported import NostrPushCore

/// Why a `PushRelay` operation failed: storage, configuration or a gateway exchange.
///
/// Equality and hashing use `code` and `field` only, so a test matches the reason, never the
/// human-readable message. Storage failures are what a relay answers with
/// `error: internal server error`; a lease rejection is not an error but a `LeaseAcceptance`.
public typealias PushRelayError = DomainError<PushRelayErrorDomain>

/// The error domain of `PushRelayError`: its codes are the static members below.
public enum PushRelayErrorDomain: ErrorDomain {
  /// The database's diagnostic of a storage failure.
  public typealias Detail = StorageDiagnostic

}

extension ErrorCode where Domain == PushRelayErrorDomain {
  /// SQLite refused an operation (open, migrate, read or write); the message holds its text.
  public static var storage: Self { Self("storage") }
  /// The state file was written by a newer version (its `user_version` is above every migration).
  public static var unsupportedSchema: Self { Self("unsupported_schema") }
  /// A setting is outside its documented range (a gateway URL, a timeout).
  public static var invalidConfiguration: Self { Self("invalid_configuration") }
  /// The transport could not deliver the request by its deadline: timeout, refused, reset or cut short.
  public static var transport: Self { Self("transport") }
  /// The push key needed to sign a gateway request is not held.
  public static var unknownPushKey: Self { Self("unknown_push_key") }
  /// A stored value does not have the shape it was written with.
  public static var corruptRow: Self { Self("corrupt_row") }
}
