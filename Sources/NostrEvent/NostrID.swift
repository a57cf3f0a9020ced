/// A 32-byte Nostr identifier — a public key or an event id — as 64 lowercase hex characters,
/// checked once where it enters.
///
/// Holding one means the text was checked: code that takes a `NostrID` need not check again.
/// `init?(_:)` takes only the canonical form (what NIP-01 puts in events); `init?(lenient:)`
/// also takes upper-case digits and lower-cases them, for keys typed by people or read from
/// NIP-11 documents and tags.
public struct NostrID: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The number of hex characters.
  public static let hexLength = 64

  /// The 64 lowercase hex characters.
  public let hex: String

  /// The identifier in `text`, nil unless it is exactly 64 lowercase hex characters.
  public init?(_ text: String) {
    guard Hex.isLowercaseHex(text, length: Self.hexLength) else { return nil }
    hex = text
  }

  /// The identifier in `text` written in either case, lower-cased; nil unless it is 64 hex digits.
  public init?(lenient text: String) {
    guard text.utf8.count == Self.hexLength, Hex.decode(text) != nil else { return nil }
    hex = text.lowercased()
  }

  /// The 32 bytes.
  package var bytes: [UInt8] { Hex.decode(hex)! }

  /// The hex text.
  public var description: String { hex }

  /// Orders by the hex text (the same order as the bytes).
  public static func < (lhs: NostrID, rhs: NostrID) -> Bool { lhs.hex < rhs.hex }
}
