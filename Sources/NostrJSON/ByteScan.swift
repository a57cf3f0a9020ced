/// Eight-bytes-at-a-time checks for the bytes JSON strings treat specially.
///
/// Reading and writing strings is dominated by looking for `"`, `\` and control bytes; testing
/// a whole 64-bit word at once skips ordinary text eight bytes per step. Public (and inlinable)
/// so that NostrEvent's dedicated event reader scans strings the same way.
package enum ByteScan {
  /// Whether any of the eight bytes in `word` is below 0x20, `"` (0x22) or `\` (0x5C).
  @inlinable @inline(__always)
  package static func hasSpecialByte(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highBits: UInt64 = 0x8080_8080_8080_8080
    let control = (word &- ones &* 0x20) & ~word & highBits
    let quote = word ^ (ones &* 0x22)
    let quoteZero = (quote &- ones) & ~quote & highBits
    let backslash = word ^ (ones &* 0x5C)
    let backslashZero = (backslash &- ones) & ~backslash & highBits
    return (control | quoteZero | backslashZero) != 0
  }

  /// The first index at or after `start` (before `end`) whose eight-byte word holds a special
  /// byte, or the index where fewer than eight bytes remain.
  @inlinable @inline(__always)
  package static func skipOrdinary(_ base: UnsafeRawPointer, from start: Int, to end: Int) -> Int {
    var index = start
    while index + 8 <= end, !hasSpecialByte(base.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
      index += 8
    }
    return index
  }
}

extension ByteScan {
  /// Whether the `count` bytes at `base` are well-formed UTF-8 (RFC 3629: no overlong forms, no
  /// surrogates, nothing above U+10FFFF), checked without building a `String`.
  ///
  /// Every decoded JSON string is checked this way, so runs of ASCII are skipped a word at a time.
  package static func isValidUTF8(_ base: UnsafeRawPointer, count: Int) -> Bool {
    var index = 0
    while index < count {
      let lead = base.load(fromByteOffset: index, as: UInt8.self)
      if lead < 0x80 {
        index += 1
        // After an ASCII byte, try whole words (text that is mostly ASCII skips ahead here;
        // text that is mostly multibyte does not pay for a word test per character).
        while index + 16 <= count {
          let first = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
          let second = base.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
          guard (first | second) & 0x8080_8080_8080_8080 == 0 else { break }
          index += 16
        }
        continue
      }
      let length: Int
      var secondLow: UInt8 = 0x80
      var secondHigh: UInt8 = 0xBF
      switch lead {
      case 0xC2...0xDF: length = 2
      case 0xE0:
        length = 3
        secondLow = 0xA0
      case 0xED:
        length = 3
        secondHigh = 0x9F
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xF0:
        length = 4
        secondLow = 0x90
      case 0xF1...0xF3: length = 4
      case 0xF4:
        length = 4
        secondHigh = 0x8F
      default: return false
      }
      guard index + length <= count else { return false }
      let second = base.load(fromByteOffset: index + 1, as: UInt8.self)
      guard second >= secondLow, second <= secondHigh else { return false }
      if length > 2 {
        guard base.load(fromByteOffset: index + 2, as: UInt8.self) & 0xC0 == 0x80 else { return false }
        if length > 3 {
          guard base.load(fromByteOffset: index + 3, as: UInt8.self) & 0xC0 == 0x80 else { return false }
        }
      }
      index += length
    }
    return true
  }
}
