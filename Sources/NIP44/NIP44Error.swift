@_exported import NostrPushCore

/// Why a NIP-44 operation refused its input: one code per rule of the spec.
///
/// `decrypt` reports the first failing check of its ordered list, so a caller (and a test) can
/// tell which rule a payload broke. It has the package's one error shape (`NostrPushError`);
/// `field` is always nil, so equality and hashing compare `code` only, never `message`.
public typealias NIP44Error = DomainError<NIP44ErrorDomain>

/// The error domain of `NIP44Error`: its codes are the static members below.
public enum NIP44ErrorDomain: ErrorDomain {}

extension ErrorCode where Domain == NIP44ErrorDomain {
  /// The payload starts with `#`, or its version byte is not 2 (decrypt checks 1 and 5).
  public static var unsupportedVersion: Self { Self("unsupported_version") }
  /// The payload is not 132…87 472 characters long (decrypt check 2).
  public static var invalidPayloadSize: Self { Self("invalid_payload_size") }
  /// The payload is not canonical standard base64 (decrypt check 3).
  public static var invalidBase64: Self { Self("invalid_base64") }
  /// The decoded payload is not 99…65 603 bytes long (decrypt check 4).
  public static var invalidDataSize: Self { Self("invalid_data_size") }
  /// The MAC does not match: wrong key, or a changed payload (decrypt check 6).
  public static var invalidMAC: Self { Self("invalid_mac") }
  /// The decrypted length prefix or padding is wrong (decrypt check 7).
  public static var invalidPadding: Self { Self("invalid_padding") }
  /// The plaintext is not UTF-8 (decrypt check 8, and the CLI's encrypt input).
  public static var invalidUTF8: Self { Self("invalid_utf8") }
  /// ECDH refused the secret scalar; in the CLI, a key file unreadable, not 64 hex or nsec, or
  /// not in [1, n−1].
  public static var invalidSecretKey: Self { Self("invalid_secret_key") }
  /// The public key is not 64 hex characters, or not the x coordinate of a curve point.
  public static var invalidPublicKey: Self { Self("invalid_public_key") }
  /// A conversation key that is not 32 bytes (64 hex characters).
  public static var invalidConversationKey: Self { Self("invalid_conversation_key") }
  /// A nonce that is not 32 bytes (64 hex characters).
  public static var invalidNonce: Self { Self("invalid_nonce") }
  /// A plaintext outside 1…65 535 UTF-8 bytes.
  public static var invalidPlaintextLength: Self { Self("invalid_plaintext_length") }
}
