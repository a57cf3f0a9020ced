/// Normalizes the public keys a relay information document gives (`pubkey`, `self`).
enum RelayPublicKey {
  /// The key as 64 lowercase hex, from 64 hex digits of either case or an `npub`; nil otherwise.
  static func hex(from text: String) -> String? {
    if text.utf8.count == 64, text.utf8.allSatisfy(isHexDigit) { return text.lowercased() }
    return npubHex(text)
  }

  /// The key an `npub` encodes, once the Bech32 module can decode it.
  static func npubHex(_ text: String) -> String? {
    nil
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
      UInt8(ascii: "A")...UInt8(ascii: "F"):
      true
    default: false
    }
  }
}
