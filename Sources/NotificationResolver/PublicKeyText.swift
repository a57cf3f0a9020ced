/// Reads a public key given as text (64 hex of either case) into canonical lowercase hex.
enum PublicKeyText {
  /// The lowercase hex key, or nil when `text` is not 64 hex characters.
  static func hex(from text: String) -> String? {
    let bytes = text.utf8
    guard bytes.count == 64 else { return nil }
    let isHex = bytes.allSatisfy {
      ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70)
    }
    return isHex ? text.lowercased() : nil
  }
}
