import NostrPushCore

/// Why `nostr-push gateway --config FILE` refused its configuration: the code says what kind of
/// fault, `field` names the member at fault as a dotted path with indices
/// (`apps[0].auth.token.key_file`).
///
/// Equality and hashing use `code` and `field`, so callers and tests match reasons, not wording.
public typealias PushGatewayConfigurationError = DomainError<PushGatewayConfigurationErrorDomain>

/// The error domain of ``PushGatewayConfigurationError``: its codes are the static members below.
public enum PushGatewayConfigurationErrorDomain: ErrorDomain {}

extension ErrorCode where Domain == PushGatewayConfigurationErrorDomain {
  /// A member is missing, of the wrong type, out of range, unknown or malformed.
  public static var invalidField: Self { Self("invalid_field") }
  /// A file named by the configuration cannot be opened or read, or is not a regular file.
  public static var unreadableFile: Self { Self("unreadable_file") }
  /// A secret file (a key) may be read by the group or others: it must be mode 0600 (or 0400).
  public static var insecureSecretFile: Self { Self("insecure_secret_file") }
}
