/// Eight-bytes-at-a-time checks for the bytes JSON strings treat specially.
///
/// Reading and writing strings is dominated by looking for `"`, `\` and control bytes; testing
/// a whole 64-bit word at once skips ordinary text eight bytes per step. Public (and inlinable)
/// so that NostrEvent's dedicated event reader scans strings the same way.
package enum ByteScan {
  /// The high bit of every byte of `word` that is below 0x20, `"` (0x22) or `\` (0x5C); bytes
  /// above the lowest flagged one may be flagged wrongly, the lowest never is.
  @inlinable @inline(__always)
  package static func specialBytes(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highBits: UInt64 = 0x8080_8080_8080_8080
    let control = (word &- ones &* 0x20) & ~word & highBits
    let quote = word ^ (ones &* 0x22)
    let quoteZero = (quote &- ones) & ~quote & highBits
    let backslash = word ^ (ones &* 0x5C)
    let backslashZero = (backslash &- ones) & ~backslash & highBits
    return control | quoteZero | backslashZero
  }

  /// Whether any of the eight bytes in `word` is below 0x20, `"` (0x22) or `\` (0x5C).
  @inlinable @inline(__always)
  package static func hasSpecialByte(_ word: UInt64) -> Bool {
    specialBytes(word) != 0
  }

  /// The index of the first special byte at or after `start` (before `end`) when one lies in a
  /// whole eight-byte word, else the index where fewer than eight bytes remain.
  @inlinable @inline(__always)
  package static func skipOrdinary(_ base: UnsafeRawPointer, from start: Int, to end: Int) -> Int {
    var seen: UInt64 = 0
    return skipOrdinary(base, from: start, to: end, seen: &seen)
  }

  /// `skipOrdinary`, also OR-ing into `seen` every word it loads (the one holding the special
  /// byte too), so that a reader learns at once whether the bytes it stepped over were all ASCII
  /// (`seen & 0x8080_8080_8080_8080 == 0`); bytes past the special one may be counted as well.
  @inlinable @inline(__always)
  package static func skipOrdinary(
    _ base: UnsafeRawPointer, from start: Int, to end: Int, seen: inout UInt64
  ) -> Int {
    var index = start
    while index + 8 <= end {
      // Little-endian, so that the lowest flagged byte is the first one in memory.
      let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      seen |= word
      let special = specialBytes(word)
      if special != 0 { return index + special.trailingZeroBitCount >> 3 }
      index += 8
    }
    return index
  }
}

extension ByteScan {
  /// Whether the `count` bytes at `base` are well-formed UTF-8 (RFC 3629: no overlong forms, no
  /// surrogates, nothing above U+10FFFF), checked without building a `String`.
  ///
  /// Every decoded JSON string is checked this way, so runs of ASCII are skipped a word at a
  /// time, and the multi-byte sequences of a word in another script are checked back to back.
  package static func isValidUTF8(_ base: UnsafeRawPointer, count: Int) -> Bool {
    var index = 0
    while index < count {
      if index + 8 <= count {
        // One word: skip its ASCII prefix at once (the first byte is the lowest, so the first
        // byte with its high bit set is found from the trailing zeros).
        let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        let high = word & 0x8080_8080_8080_8080
        guard high != 0 else {
          index += 8
          continue
        }
        index += high.trailingZeroBitCount >> 3
      } else if base.load(fromByteOffset: index, as: UInt8.self) < 0x80 {
        index += 1
        continue
      }
      repeat {
        let length = sequenceLength(base, at: index, count: count)
        guard length > 0 else { return false }
        index += length
      } while index < count && base.load(fromByteOffset: index, as: UInt8.self) >= 0x80
    }
    return true
  }

  /// The length of the well-formed sequence whose lead byte (high bit set) is at `index`, or 0.
  @inline(__always)
  private static func sequenceLength(_ base: UnsafeRawPointer, at index: Int, count: Int) -> Int {
    // The length from the lead's leading ones: 2 to 4 for a lead byte, 1 for a continuation
    // byte, more for bytes UTF-8 never uses.
    let lead = base.load(fromByteOffset: index, as: UInt8.self)
    let length = (~lead).leadingZeroBitCount
    guard length >= 2, length <= 4, lead >= 0xC2, lead <= 0xF4, index + length <= count else { return 0 }
    let second = base.load(fromByteOffset: index + 1, as: UInt8.self)
    guard second & 0xC0 == 0x80 else { return 0 }
    // Two bytes: a lead of at least 0xC2 rules out the overlong forms, and nothing else can fail.
    if length == 2 { return 2 }
    // Overlong three- and four-byte forms, surrogates and code points above U+10FFFF.
    let outOfRange =
      (lead == 0xE0 && second < 0xA0) || (lead == 0xED && second > 0x9F) || (lead == 0xF0 && second < 0x90)
      || (lead == 0xF4 && second > 0x8F)
    guard !outOfRange else { return 0 }
    guard base.load(fromByteOffset: index + 2, as: UInt8.self) & 0xC0 == 0x80 else { return 0 }
    guard length == 4 else { return 3 }
    return base.load(fromByteOffset: index + 3, as: UInt8.self) & 0xC0 == 0x80 ? 4 : 0
  }
}
