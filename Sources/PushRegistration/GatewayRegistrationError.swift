@_exported import NostrPushCore

/// Why a ``GatewayRegistrar`` refused to make a request: its gateway URL, or an input that no
/// gateway would take (checked before anything is sent).
///
/// Equality and hashing use `code` and `field`, so callers match reasons, not wording.
public typealias GatewayRegistrationError = DomainError<GatewayRegistrationErrorDomain>

/// The error domain of ``GatewayRegistrationError``: its codes are the static members below.
public enum GatewayRegistrationErrorDomain: ErrorDomain {}

extension ErrorCode where Domain == GatewayRegistrationErrorDomain {
  /// The gateway URL is not `https://host[:port]` (`http` only on loopback) in canonical form.
  public static var invalidGatewayURL: Self { Self("invalid_gateway_url") }
  /// An argument is malformed (the field named).
  public static var invalidArgument: Self { Self("invalid_argument") }
  /// The NIP-98 event could not be signed.
  public static var signingFailed: Self { Self("signing_failed") }
}
