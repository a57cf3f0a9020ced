/// UTF-8 validation and cutting at a scalar boundary: the package's one UTF-8 validator.
///
/// Every decoded JSON string, every canonical serialization's non-ASCII content, NIP-19 TLV text,
/// NIP-44 plaintext and WebSocket text and close frames are checked here. (The standard library's
/// `String(validating:as:)` needs iOS 18 / macOS 15; the package supports iOS 16 / macOS 13.)
package enum UTF8Text {
  /// `bytes` as a `String` when they are valid UTF-8, else nil (never a replacement character).
  package static func decode(_ bytes: some Collection<UInt8>) -> String? {
    isValid(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
  }

  /// `bytes` as a `String` when they are valid UTF-8, else nil.
  package static func decode(_ bytes: UnsafeRawBufferPointer) -> String? {
    guard let base = bytes.baseAddress else { return "" }
    return isValid(base, count: bytes.count) ? String(decoding: bytes, as: UTF8.self) : nil
  }

  /// Whether `bytes` are valid UTF-8.
  package static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
    let checked = bytes.withContiguousStorageIfAvailable { buffer in
      buffer.isEmpty || isValid(UnsafeRawPointer(buffer.baseAddress!), count: buffer.count)
    }
    return checked ?? isValid(Array(bytes))
  }

  /// The longest prefix of `text` whose UTF-8 form has at most `maxBytes` bytes and ends on a
  /// scalar boundary.
  package static func prefix(_ text: String, maxBytes: Int) -> [UInt8] {
    var count = 0
    for scalar in text.unicodeScalars {
      let width = UTF8.width(scalar)
      guard count + width <= maxBytes else { break }
      count += width
    }
    return Array(text.utf8.prefix(count))
  }

  /// Whether the `count` bytes at `base` are well-formed UTF-8 (RFC 3629: no overlong forms, no
  /// surrogates, nothing above U+10FFFF), checked without building a `String`.
  ///
  /// Every decoded JSON string is checked this way, so runs of ASCII are skipped a word at a
  /// time, and the multi-byte sequences of a word in another script are checked back to back.
  package static func isValid(_ base: UnsafeRawPointer, count: Int) -> Bool {
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
