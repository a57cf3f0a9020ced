/// Why a NIP-44 operation refused its input: one code per rule of the spec.
///
/// `decrypt` reports the first failing check of its ordered list, so a caller (and a test) can
/// tell which rule a payload broke; equality and hashing compare `code` only, never `message`.
public struct NIP44Error: Error, Sendable, Hashable, CustomStringConvertible {
  /// A stable, machine-readable reason (snake_case raw value), extensible like every code of the
  /// package.
  public struct Code: RawRepresentable, Hashable, Sendable {
    /// The snake_case name printed by the CLI.
    public let rawValue: String

    /// A code with the given raw value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The payload starts with `#`, or its version byte is not 2 (decrypt checks 1 and 5).
    public static let unsupportedVersion = Code(rawValue: "unsupported_version")
    /// The payload is not 132…87 472 characters long (decrypt check 2).
    public static let invalidPayloadSize = Code(rawValue: "invalid_payload_size")
    /// The payload is not canonical standard base64 (decrypt check 3).
    public static let invalidBase64 = Code(rawValue: "invalid_base64")
    /// The decoded payload is not 99…65 603 bytes long (decrypt check 4).
    public static let invalidDataSize = Code(rawValue: "invalid_data_size")
    /// The MAC does not match: wrong key, or a changed payload (decrypt check 6).
    public static let invalidMAC = Code(rawValue: "invalid_mac")
    /// The decrypted length prefix or padding is wrong (decrypt check 7).
    public static let invalidPadding = Code(rawValue: "invalid_padding")
    /// The plaintext is not UTF-8 (decrypt check 8, and the CLI's encrypt input).
    public static let invalidUTF8 = Code(rawValue: "invalid_utf8")
    /// ECDH refused the secret scalar; in the CLI, a key file unreadable, not 64 hex or nsec, or
    /// not in [1, n−1].
    public static let invalidSecretKey = Code(rawValue: "invalid_secret_key")
    /// The public key is not 64 hex characters, or not the x coordinate of a curve point.
    public static let invalidPublicKey = Code(rawValue: "invalid_public_key")
    /// A conversation key that is not 32 bytes (64 hex characters).
    public static let invalidConversationKey = Code(rawValue: "invalid_conversation_key")
    /// A nonce that is not 32 bytes (64 hex characters).
    public static let invalidNonce = Code(rawValue: "invalid_nonce")
    /// A plaintext outside 1…65 535 UTF-8 bytes.
    public static let invalidPlaintextLength = Code(rawValue: "invalid_plaintext_length")
  }

  /// The reason.
  public let code: Code
  /// A human-readable explanation; never compared.
  public let message: String

  /// An error with `code` and an explanation.
  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  /// The message, for logs.
  public var description: String { "\(code.rawValue): \(message)" }

  /// Whether both errors have the same code.
  public static func == (lhs: NIP44Error, rhs: NIP44Error) -> Bool { lhs.code == rhs.code }

  /// Hashes the code only, matching `==`.
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
