/// Checks and converts the 32-byte keys and ids the cache is keyed by.
enum HexKey {
  /// Throws `invalidField` naming `field` unless `text` is 64 lowercase hex characters.
  static func check(_ text: String, field: String) throws(CacheError) {
    guard isValid(text) else { throw .invalid(field, "must be 64 lowercase hex characters") }
  }

  /// Whether `text` is 64 lowercase hex characters.
  static func isValid(_ text: String) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  /// The 32 bytes of a valid key, or nil.
  static func bytes(_ text: String) -> [UInt8]? {
    guard isValid(text) else { return nil }
    var result: [UInt8] = []
    result.reserveCapacity(32)
    var high: UInt8 = 0
    for (index, byte) in text.utf8.enumerated() {
      let nibble = byte <= 0x39 ? byte - 0x30 : byte - 0x61 + 10
      if index % 2 == 0 {
        high = nibble << 4
      } else {
        result.append(high | nibble)
      }
    }
    return result
  }
}
