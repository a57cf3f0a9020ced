/// Hex conversion for the 32-byte keys and ids NIP-19 carries; this module depends on no other.
enum HexBytes {
  /// The lower-case hex digits, indexed by value.
  static let digits: [UInt8] = Array("0123456789abcdef".utf8)

  /// The value of a hex digit byte (either case), or nil.
  @inline(__always)
  static func value(of digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  /// Whether `text` is exactly `byteCount * 2` hex digits (either case) and nothing else.
  static func isHex(_ text: String, byteCount: Int) -> Bool {
    text.utf8.count == byteCount * 2 && text.utf8.allSatisfy { value(of: $0) != nil }
  }

  /// Parses exactly `byteCount` bytes of hex (either case); errors name `field`.
  static func bytes(_ text: String, byteCount: Int, field: String) throws(Bech32Error) -> [UInt8] {
    let utf8 = text.utf8
    guard utf8.count == byteCount * 2 else {
      throw Bech32Error(
        .invalidLength, field: field,
        "\(field) has \(utf8.count) characters; \(byteCount * 2) hex digits are required")
    }
    var bytes = [UInt8](repeating: 0, count: byteCount)
    var high: UInt8 = 0
    for (offset, digit) in utf8.enumerated() {
      guard let nibble = value(of: digit) else {
        throw Bech32Error(
          .invalidCharacter, field: field, offset: offset, "\(field) has a non-hex character at \(offset)")
      }
      if offset & 1 == 0 {
        high = nibble << 4
      } else {
        bytes[offset >> 1] = high | nibble
      }
    }
    return bytes
  }

  /// The lower-case hex of `bytes`.
  static func string(_ bytes: some Collection<UInt8>) -> String {
    String(unsafeUninitializedCapacity: bytes.count * 2) { output in
      var index = 0
      for byte in bytes {
        output[index] = digits[Int(byte >> 4)]
        output[index + 1] = digits[Int(byte & 15)]
        index += 2
      }
      return index
    }
  }
}
