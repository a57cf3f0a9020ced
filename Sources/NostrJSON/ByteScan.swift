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
