/// Hexadecimal encoding and decoding of bytes.
///
/// Nostr writes every id, key and signature as lowercase hex; the decoder also reads uppercase
/// so that callers can decide for themselves whether to be strict.
package enum Hex {
  private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

  /// The lowercase hex encoding of `bytes`.
  package static func encode(_ bytes: some Sequence<UInt8>) -> String {
    var output: [UInt8] = []
    output.reserveCapacity(bytes.underestimatedCount * 2)
    digits.withUnsafeBufferPointer { table in
      for byte in bytes {
        output.append(table[Int(byte >> 4)])
        output.append(table[Int(byte & 0x0F)])
      }
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// The bytes of hex `text` (lower or upper case), or nil when it has an odd length or a
  /// character that is not a hex digit.
  package static func decode(_ text: String) -> [UInt8]? {
    var text = text
    return text.withUTF8 { decode(utf8: UnsafeRawBufferPointer($0)) }
  }

  /// Whether `text` is exactly `length` characters of lowercase hex (no sign, no whitespace).
  package static func isLowercaseHex(_ text: String, length: Int) -> Bool {
    var text = text
    return text.withUTF8 { utf8 in
      guard utf8.count == length else { return false }
      for byte in utf8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
        default: return false
        }
      }
      return true
    }
  }

  static func decode(utf8: UnsafeRawBufferPointer) -> [UInt8]? {
    guard utf8.count % 2 == 0 else { return nil }
    let count = utf8.count / 2
    var failed = false
    let bytes = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
      for index in 0..<count {
        guard let high = value(of: utf8[2 * index]), let low = value(of: utf8[2 * index + 1]) else {
          failed = true
          break
        }
        output[index] = high << 4 | low
      }
      initialized = failed ? 0 : count
    }
    return failed ? nil : bytes
  }

  /// Decodes hex `text` into `output`, which must hold exactly half as many bytes as `text`
  /// has characters; false on a bad character or length.
  ///
  /// `package` so that NIP44 decodes secret hex straight into memory it wipes.
  package static func decode(_ text: String, into output: UnsafeMutableRawBufferPointer) -> Bool {
    var text = text
    return text.withUTF8 { decode(utf8: UnsafeRawBufferPointer($0), into: output) }
  }

  /// Decodes the hex digits in `utf8` into `output` (exactly half as many bytes); false on a
  /// bad character or length. The event verifier decodes ids and keys straight from the document.
  package static func decode(utf8: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Bool
  {
    guard utf8.count == output.count * 2, let source = utf8.baseAddress, let target = output.baseAddress
    else {
      return utf8.count == output.count * 2
    }
    // Branch-free per digit: every id, key and signature of a verification goes through here.
    var invalid: UInt8 = 0
    for index in 0..<output.count {
      let high = source.load(fromByteOffset: 2 &* index, as: UInt8.self)
      let low = source.load(fromByteOffset: 2 &* index &+ 1, as: UInt8.self)
      invalid |= notHexDigit(high) | notHexDigit(low)
      target.storeBytes(of: nibble(high) << 4 | nibble(low), toByteOffset: index, as: UInt8.self)
    }
    return invalid == 0
  }

  /// The value of a hex digit of either case (any other byte gives garbage, see `notHexDigit`).
  @inline(__always)
  private static func nibble(_ digit: UInt8) -> UInt8 {
    (digit & 0x0F) &+ (digit >> 6) &* 9
  }

  /// 1 when `digit` is not 0–9, a–f or A–F, else 0.
  @inline(__always)
  private static func notHexDigit(_ digit: UInt8) -> UInt8 {
    let isDecimal = digit &- UInt8(ascii: "0") < 10
    let isLetter = (digit | 0x20) &- UInt8(ascii: "a") < 6
    return (isDecimal || isLetter) ? 0 : 1
  }

  @inline(__always)
  private static func value(of digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit &- UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit &- UInt8(ascii: "a") &+ 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit &- UInt8(ascii: "A") &+ 10
    default: nil
    }
  }
}
