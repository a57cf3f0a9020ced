@_exported import NostrPushCore

/// Why a bech32 string or a NIP-19 entity was refused, with a stable code a caller can match.
///
/// Codec errors carry the byte `offset` of the offending character; entity errors name the
/// `field` (`pubkey`, `relay`, `kind`, …). Two errors are equal when their codes are equal, so a
/// test can compare against a bare code while the message stays free to improve.
public typealias Bech32Error = DomainError<Bech32ErrorDomain>

/// The error domain of `Bech32Error`: its codes are the static members below.
public enum Bech32ErrorDomain: ErrorDomain {
  /// The byte offset at fault in the input, when one applies.
  public typealias Detail = Int

}

extension ErrorCode where Domain == Bech32ErrorDomain {
  /// The checksum does not hold (bech32m checksums included).
  public static var invalidChecksum: Self { Self("invalid_checksum") }
  /// The string has both upper- and lower-case letters.
  public static var mixedCase: Self { Self("mixed_case") }
  /// A character outside ASCII 33–126 or the data alphabet, no separator, or an empty prefix.
  public static var invalidCharacter: Self { Self("invalid_character") }
  /// Too short, too long, or a payload of the wrong size for its entity.
  public static var invalidLength: Self { Self("invalid_length") }
  /// More than 4 leftover bits, or non-zero ones, when regrouping 5-bit words into bytes.
  public static var invalidPadding: Self { Self("invalid_padding") }
  /// The checksum holds but the human-readable part names no supported NIP-19 entity.
  public static var unknownPrefix: Self { Self("unknown_prefix") }
  /// A TLV record runs past the end, has the wrong length, or a required one is missing.
  public static var invalidTLV: Self { Self("invalid_tlv") }
  /// A BOLT-11 amount that is not a positive decimal with a known multiplier, not a whole number
  /// of millisatoshis, or too large.
  public static var invalidAmount: Self { Self("invalid_amount") }
}

extension DomainError where Domain == Bech32ErrorDomain {
  /// The byte offset at fault in the input, when one applies.
  public var offset: Int? { detail }
}
