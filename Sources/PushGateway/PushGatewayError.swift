@_exported import NostrPushCore

/// Why the gateway refused a configuration value, a credential or an input.
///
/// Equality and hashing use `code` and `field`, so callers match reasons, not wording.
public typealias PushGatewayError = DomainError<PushGatewayErrorDomain>

/// The error domain of `PushGatewayError`: its codes are the static members below.
public enum PushGatewayErrorDomain: ErrorDomain {}

extension ErrorCode where Domain == PushGatewayErrorDomain {
  /// The APNs signing key is not a PKCS#8 PEM EC P-256 private key.
  public static var invalidSigningKey: Self { Self("invalid_signing_key") }
  /// A key id or team id is not 10 ASCII letters or digits.
  public static var invalidIdentifier: Self { Self("invalid_identifier") }
  /// The signing library failed to sign.
  public static var signingFailed: Self { Self("signing_failed") }
  /// A device token is not 64 to 200 lower-case hex digits.
  public static var invalidDeviceToken: Self { Self("invalid_device_token") }
  /// A `request_id` is not a lower-case UUID v4.
  public static var invalidRequestID: Self { Self("invalid_request_id") }
  /// The store that keeps the shared provider token failed.
  public static var tokenStoreUnavailable: Self { Self("token_store_unavailable") }
  /// An app's topic or wake body is unusable.
  public static var invalidApp: Self { Self("invalid_app") }
  /// The gateway's store cannot be reached or failed (a delivery is answered 503
  /// `temporarily_unavailable`).
  public static var storageUnavailable: Self { Self("storage_unavailable") }
  /// The store file records a schema newer than this code knows.
  public static var unsupportedSchema: Self { Self("unsupported_schema") }
  /// A key file is not 32 bytes of hex, or two key files derive the same key id.
  public static var invalidKeyFile: Self { Self("invalid_key_file") }
  /// A gateway setting is out of range (the field named).
  public static var invalidConfiguration: Self { Self("invalid_configuration") }
}
