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
