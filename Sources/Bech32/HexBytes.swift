/// Hex conversion for the 32-byte keys and ids NIP-19 carries; this module depends on no other.
///
/// It works on the contiguous UTF-8 of the string, never on `Character`s, because it sits on
/// the npub encode path that must stay well under a microsecond.
enum HexBytes {
  /// The lower-case hex digits, indexed by value.
  static let digits: [UInt8] = Array("0123456789abcdef".utf8)

  /// For each byte, its value as a hex digit (either case), or 0xFF.
  static let values: [UInt8] = (0...255).map { byte in
    switch byte {
    case 48...57: UInt8(byte - 48)
    case 97...102: UInt8(byte - 87)
    case 65...70: UInt8(byte - 55)
    default: 0xFF
    }
  }

  /// Calls `body` with the UTF-8 bytes of `text`, copying only a non-contiguous string.
  @inline(__always)
  static func withUTF8<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
    var copy = text
    copy.makeContiguousUTF8()
    return copy.utf8.withContiguousStorageIfAvailable(body)!
  }

  /// Whether `text` is exactly `byteCount * 2` hex digits (either case) and nothing else.
  static func isHex(_ text: String, byteCount: Int) -> Bool {
    withUTF8(text) { utf8 in
      guard utf8.count == byteCount * 2 else { return false }
      return values.withUnsafeBufferPointer { values in
        var invalid: UInt8 = 0
        for digit in utf8 { invalid |= values[Int(digit)] }
        return invalid & 0x80 == 0
      }
    }
  }

  /// Parses exactly `byteCount` bytes of hex (either case); errors name `field`.
  static func bytes(_ text: String, byteCount: Int, field: String) throws(Bech32Error) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: byteCount)
    let failure = withUTF8(text) { utf8 in
      bytes.withUnsafeMutableBufferPointer { parse(utf8, into: $0, field: field) }
    }
    if let failure { throw failure }
    return bytes
  }

  /// Parses `utf8` as exactly `output.count` bytes of hex (either case) into `output`; returns
  /// the error, naming `field`, when it is not that.
  static func parse(
    _ utf8: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>, field: String
  )
    -> Bech32Error?
  {
    guard utf8.count == output.count * 2 else {
      return Bech32Error(
        code: .invalidLength, field: field,
        message: "\(field) has \(utf8.count) characters; \(output.count * 2) hex digits are required")
    }
    var invalid: UInt8 = 0
    values.withUnsafeBufferPointer { values in
      for index in 0..<output.count {
        let high = values[Int(utf8[2 &* index])]
        let low = values[Int(utf8[2 &* index &+ 1])]
        invalid |= high | low
        output[index] = high << 4 | (low & 15)
      }
    }
    guard invalid & 0x80 != 0 else { return nil }
    let badOffset = utf8.firstIndex { values[Int($0)] == 0xFF } ?? 0
    return Bech32Error(
      code: .invalidCharacter, field: field, message: "\(field) has a non-hex character at \(badOffset)",
      detail: badOffset)
  }

  /// The lower-case hex of the bytes that 5-bit `words` regroup into, or nil when the leftover
  /// bits are not a valid padding (more than 4, or not zero).
  ///
  /// This is `Bech32.bytes(fromWords:)` and `string(_:)` in one pass, without the byte array,
  /// for the npub, nsec and note decode path.
  static func string(regrouping words: UnsafeBufferPointer<UInt8>) -> String? {
    let byteCount = words.count * 5 / 8
    var validPadding = true
    let hex = digits.withUnsafeBufferPointer { digits in
      String(unsafeUninitializedCapacity: byteCount * 2) { output in
        var index = 0
        var word = 0
        // Eight words are exactly five bytes: take them 40 bits at a time.
        while word + 8 <= words.count {
          var group: UInt64 = 0
          for offset in 0..<8 { group = (group << 5) | UInt64(words[word &+ offset] & 31) }
          var shift: UInt64 = 40
          while shift > 0 {
            shift &-= 8
            let byte = Int(truncatingIfNeeded: group >> shift) & 0xFF
            output[index] = digits[byte >> 4]
            output[index &+ 1] = digits[byte & 15]
            index &+= 2
          }
          word &+= 8
        }
        var accumulator: UInt32 = 0
        var bits: UInt32 = 0
        for value in words[word...] {
          accumulator = ((accumulator << 5) | UInt32(value & 31)) & 0xFFF
          bits += 5
          if bits >= 8 {
            bits -= 8
            let byte = Int((accumulator >> bits) & 0xFF)
            output[index] = digits[byte >> 4]
            output[index + 1] = digits[byte & 15]
            index += 2
          }
        }
        validPadding = bits <= 4 && accumulator & ((1 << bits) - 1) == 0
        return index
      }
    }
    return validPadding ? hex : nil
  }

  /// The lower-case hex of `bytes`.
  static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    digits.withUnsafeBufferPointer { digits in
      String(unsafeUninitializedCapacity: bytes.count * 2) { output in
        for (index, byte) in bytes.enumerated() {
          output[2 * index] = digits[Int(byte >> 4)]
          output[2 * index + 1] = digits[Int(byte & 15)]
        }
        return bytes.count * 2
      }
    }
  }

  /// The lower-case hex of `bytes`.
  static func string(_ bytes: ArraySlice<UInt8>) -> String {
    bytes.withUnsafeBufferPointer { string($0) }
  }

  /// The lower-case hex of `bytes`.
  static func string(_ bytes: [UInt8]) -> String {
    bytes.withUnsafeBufferPointer { string($0) }
  }
}
