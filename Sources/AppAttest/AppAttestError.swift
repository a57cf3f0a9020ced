@_exported import NostrPushCore

/// Why App Attest verification refused its input: one code per step, so a caller (and a test, and
/// the gateway's log) can tell which rule an attestation, an assertion or its CBOR broke.
///
/// The package's one error shape (`NostrPushError`); equality and hashing compare `code` and
/// `field`, never `message`.
public typealias AppAttestError = DomainError<AppAttestErrorDomain>

/// The error domain of `AppAttestError`: its codes are the static members below.
public enum AppAttestErrorDomain: ErrorDomain {}

extension ErrorCode where Domain == AppAttestErrorDomain {
  // CBOR (`CBORReader`).
  /// The CBOR input ends inside an item (a header, a length or a string's bytes).
  public static var cborTruncated: Self { Self("cbor_truncated") }
  /// Bytes follow the one top-level CBOR item.
  public static var cborTrailingBytes: Self { Self("cbor_trailing_bytes") }
  /// The input, or one string, array or map in it, is over `CBORReader.maxSize` (64 KiB).
  public static var cborTooLarge: Self { Self("cbor_too_large") }
  /// Arrays and maps nest deeper than `CBORReader.maxDepth` (8).
  public static var cborTooDeep: Self { Self("cbor_too_deep") }
  /// An indefinite length (additional information 31), or a reserved one (28…30).
  public static var cborIndefiniteLength: Self { Self("cbor_indefinite_length") }
  /// A tag, a float or a simple value other than false, true and null.
  public static var cborUnsupportedType: Self { Self("cbor_unsupported_type") }
  /// A map key that is not a text string, or a key that appears twice.
  public static var cborInvalidMapKey: Self { Self("cbor_invalid_map_key") }
  /// A text string that is not UTF-8.
  public static var cborInvalidUTF8: Self { Self("cbor_invalid_utf8") }

  // Inputs.
  /// An app id that is not `TEAMID.bundle.id` (printable ASCII, a dot, at most 255 bytes).
  public static var invalidAppID: Self { Self("invalid_app_id") }
  /// A key id that is not 32 bytes.
  public static var invalidKeyID: Self { Self("invalid_key_id") }
  /// A client data hash (or client data) that is empty or over 64 KiB.
  public static var invalidClientData: Self { Self("invalid_client_data") }
  /// A trust anchor that is not one PEM or DER X.509 certificate.
  public static var invalidTrustAnchor: Self { Self("invalid_trust_anchor") }

  // Attestation, in the order of Apple's steps.
  /// The attestation is not the map {`fmt`: `apple-appattest`, `attStmt`: {`x5c`: [leaf,
  /// intermediate], `receipt`}, `authData`} with those types.
  public static var invalidAttestationFormat: Self { Self("invalid_attestation_format") }
  /// A certificate of `x5c` that libcrypto cannot read, or a leaf key that is not EC P-256.
  public static var invalidCertificate: Self { Self("invalid_certificate") }
  /// The chain does not verify to the trust anchor (step 1).
  public static var untrustedCertificateChain: Self { Self("untrusted_certificate_chain") }
  /// A certificate of the chain is expired or not yet valid at the verification time (step 1).
  public static var certificateNotValidAtTime: Self { Self("certificate_not_valid_at_time") }
  /// The leaf lacks extension 1.2.840.113635.100.8.2, or it is not SEQUENCE {[1] OCTET STRING}.
  public static var invalidNonceExtension: Self { Self("invalid_nonce_extension") }
  /// The extension's nonce is not SHA-256(authData ‖ clientDataHash) (steps 2–4).
  public static var nonceMismatch: Self { Self("nonce_mismatch") }
  /// SHA-256 of the leaf's uncompressed public key is not the key id sent (step 5).
  public static var keyIDMismatch: Self { Self("key_id_mismatch") }
  /// Authenticator data shorter than its fixed fields, or without the attested credential.
  public static var invalidAuthenticatorData: Self { Self("invalid_authenticator_data") }
  /// The authenticator data's rpIdHash is not SHA-256 of the app id (step 6; assertions too).
  public static var rpIDMismatch: Self { Self("rp_id_mismatch") }
  /// The attestation's sign counter is not 0 (step 7).
  public static var counterNotZero: Self { Self("counter_not_zero") }
  /// The aaguid is not the configured environment's (step 8).
  public static var aaguidMismatch: Self { Self("aaguid_mismatch") }
  /// The authenticator data's credential id is not the key id sent (step 9).
  public static var credentialIDMismatch: Self { Self("credential_id_mismatch") }

  // Assertion.
  /// The assertion is not the map {`signature`: bytes, `authenticatorData`: bytes}.
  public static var invalidAssertionFormat: Self { Self("invalid_assertion_format") }
  /// A stored public key that is not a 65-byte uncompressed P-256 point on the curve.
  public static var invalidPublicKey: Self { Self("invalid_public_key") }
  /// The signature is not a DER ECDSA P-256 signature over the nonce by the stored key.
  public static var invalidSignature: Self { Self("invalid_signature") }
  /// The assertion's counter is not strictly greater than the stored one (a replay).
  public static var counterNotIncreasing: Self { Self("counter_not_increasing") }
}

extension ErrorCode where Domain == AppAttestErrorDomain {
  // Transcripts (`AppAttestTranscript`).
  /// A transcript input the gateway would never accept: an empty public URL or one ending in `/`, a
  /// challenge that is not 32 bytes of base64url, an owner that is not 64 lowercase hex, or a field
  /// named `audience` or `challenge`.
  public static var invalidTranscript: Self { Self("invalid_transcript") }

  // The app's provider (`AppAttestProvider`).
  /// App Attest is not available on this device (`DCAppAttestService.isSupported` is false: a
  /// simulator, an old device, or an extension): the caller decides, nothing is skipped silently.
  public static var attestationUnsupported: Self { Self("attestation_unsupported") }
  /// The App Attest key is gone or refused (`DCError.invalidKey`, after a restore or reinstall):
  /// discard its id, then register again with a new key and a new attestation.
  public static var attestationKeyInvalid: Self { Self("attestation_key_invalid") }
  /// The App Attest service failed for another reason (`DCError` other than the above, Apple's
  /// server unreachable, the key id store failing); worth a later retry.
  public static var attestationServiceFailed: Self { Self("attestation_service_failed") }
}
