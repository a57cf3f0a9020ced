@_exported import NostrPushCore

/// Why the push relay service could not be configured, started or could not store.
///
/// Equality and hashing use `code` and `field`, so callers match reasons, not wording.
public typealias PushServiceError = DomainError<PushServiceErrorDomain>

/// The error domain of `PushServiceError`: its codes are the static members below.
public enum PushServiceErrorDomain: ErrorDomain {}

extension ErrorCode where Domain == PushServiceErrorDomain {
  /// A configuration value is missing, of the wrong type or out of range (the field names it).
  public static var invalidConfiguration: Self { Self("invalid_configuration") }
  /// A file the configuration names cannot be read, or is readable by others than its owner.
  public static var unreadableFile: Self { Self("unreadable_file") }
  /// The event store refused a read or a write.
  public static var storage: Self { Self("storage") }
  /// A listener could not start.
  public static var startFailed: Self { Self("start_failed") }
  /// The store file was written by a newer version of this code.
  public static var unsupportedSchema: Self { Self("unsupported_schema") }
}
