import NostrPushCore

/// Why a bech32 string or a NIP-19 entity was refused, with a stable code a caller can match.
///
/// Codec errors carry the byte `offset` of the offending character; entity errors name the
/// `field` (`pubkey`, `relay`, `kind`, …). Two errors are equal when their codes are equal, so a
/// test can compare against a bare code while the message stays free to improve.
public struct Bech32Error: NostrPushError {
  /// The stable, machine-readable reason; its raw value is what the CLI prints.
  public enum Code: String, Sendable, Hashable, CaseIterable {
    /// The checksum does not hold (bech32m checksums included).
    case invalidChecksum = "invalid_checksum"
    /// The string has both upper- and lower-case letters.
    case mixedCase = "mixed_case"
    /// A character outside ASCII 33–126 or the data alphabet, no separator, or an empty prefix.
    case invalidCharacter = "invalid_character"
    /// Too short, too long, or a payload of the wrong size for its entity.
    case invalidLength = "invalid_length"
    /// More than 4 leftover bits, or non-zero ones, when regrouping 5-bit words into bytes.
    case invalidPadding = "invalid_padding"
    /// The checksum holds but the human-readable part names no supported NIP-19 entity.
    case unknownPrefix = "unknown_prefix"
    /// A TLV record runs past the end, has the wrong length, or a required one is missing.
    case invalidTLV = "invalid_tlv"
  }

  /// The stable reason.
  public var code: Code
  /// The entity field or encoder argument at fault (`pubkey`, `relay`, `author`, `kind`, …), if any.
  public var field: String?
  /// The byte offset in the input of the offending character, if the error is about one.
  public var offset: Int?
  /// A human-readable explanation.
  public var message: String

  /// Creates an error; `message` should say what was found and what was expected.
  public init(_ code: Code, field: String? = nil, offset: Int? = nil, _ message: String) {
    self.code = code
    self.field = field
    self.offset = offset
    self.message = message
  }

  public var description: String { "\(code.rawValue): \(message)" }
}
