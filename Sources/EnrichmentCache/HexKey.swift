/// Checks and converts the 32-byte keys and ids the cache is keyed by.
enum HexKey {
  /// Throws `invalidField` naming `field` unless `text` is 64 lowercase hex characters.
  static func check(_ text: String, field: String) throws(CacheError) {
    guard isValid(text) else { throw .invalid(field, "must be 64 lowercase hex characters") }
  }

  /// Whether `text` is 64 lowercase hex characters.
  static func isValid(_ text: String) -> Bool {
    bytes(text) != nil
  }

  /// The 32 bytes of a valid key, or nil.
  static func bytes(_ text: String) -> [UInt8]? {
    let utf8 = text.utf8
    guard utf8.count == 64 else { return nil }
    var result = [UInt8](repeating: 0, count: 32)
    var position = 0
    var high: UInt8 = 0
    for byte in utf8 {
      let nibble: UInt8
      switch byte {
      case 0x30...0x39: nibble = byte &- 0x30
      case 0x61...0x66: nibble = byte &- 0x61 &+ 10
      default: return nil
      }
      if position & 1 == 0 {
        high = nibble << 4
      } else {
        result[position >> 1] = high | nibble
      }
      position += 1
    }
    return result
  }
}
