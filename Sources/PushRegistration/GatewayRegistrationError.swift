@_exported import NostrPushCore

/// Why a ``GatewayRegistrar`` refused to make a request: its gateway URL, an input that no
/// gateway would take (checked before anything is sent), or its App Attest provider's failure.
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
  /// The App Attest provider says this device cannot attest (`attestation_unsupported`): a
  /// gateway whose app requires App Attest will not take this installation.
  public static var attestationUnsupported: Self { Self("attestation_unsupported") }
  /// The provider's App Attest key is gone or refused: call its `discardKey()`, then register
  /// again (a new key, a new attestation).
  public static var attestationKeyInvalid: Self { Self("attestation_key_invalid") }
  /// The provider failed for another reason (Apple's service unreachable, its key id store);
  /// worth a later retry.
  public static var attestationServiceFailed: Self { Self("attestation_service_failed") }
}
