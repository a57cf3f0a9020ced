import NostrPushCore

/// Decodes the body of a JSON string: the one implementation of escapes, shared by `JSONReader`
/// and NostrEvent's event reader.
///
/// It reads from just after the opening quote to the closing quote, in order, and stops at the
/// first fault, so that both readers refuse the same strings for the same reason at the same
/// offset: a raw control byte, an unknown or truncated escape, a bad hex digit, a lone surrogate.
/// It writes through a pointer, so a caller decodes into a buffer it reuses.
package enum JSONStringDecoder {
  /// Why a string body does not decode; offsets are into the document.
  package enum Failure: Error, Equatable {
    /// A byte below 0x20 that is not escaped.
    case controlCharacter(UInt8, offset: Int)
    /// A backslash at the end of the input.
    case unterminatedEscape(offset: Int)
    /// A backslash followed by a letter JSON does not define.
    case invalidEscape(UInt8, offset: Int)
    /// A `\u` with fewer than four characters left.
    case truncatedUnicodeEscape(offset: Int)
    /// A `\u` followed by a character that is not a hex digit.
    case invalidHexDigit(offset: Int)
    /// A `\u` surrogate that is not half of a pair (the offset is its backslash).
    case loneSurrogate(UInt16, offset: Int)
    /// The input ended before the closing quote.
    case unterminated
  }

  /// The index of the quote that closes the string whose body starts at `start`, stepping over
  /// every escaped byte; nil when the input ends first. It checks nothing else: it sizes the
  /// buffer `decode` writes into (the decoded body is never longer than its escaped form).
  package static func closingQuote(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
    guard let base = bytes.baseAddress else { return nil }
    var position = start
    while true {
      position = ByteScan.skipOrdinary(base, from: position, to: bytes.count)
      guard position < bytes.count else { return nil }
      switch base.load(fromByteOffset: position, as: UInt8.self) {
      case UInt8(ascii: "\""): return position
      case UInt8(ascii: "\\"): position += 2
      default: position += 1
      }
    }
  }

  /// Decodes the string body starting at `start` into `output` (room for as many bytes as the
  /// body has, up to its closing quote or the end of the input); the index just after the
  /// closing quote and the number of bytes written, or the first fault. The bytes written are
  /// not checked for UTF-8 (`UTF8Text.isValid` does that: the body is valid UTF-8 exactly
  /// when its escaped form is, as escapes are ASCII and decode to whole characters).
  ///
  /// With `escaping`, each byte an escape decodes to is written as `NostrStringEscaper` writes it
  /// under that rule, and runs without escapes are copied unchanged (they hold nothing either
  /// rule escapes): the body comes out re-escaped, without its quotes, never longer than it was.
  package static func decode(
    _ bytes: UnsafeRawBufferPointer, from start: Int, into output: UnsafeMutableRawPointer,
    escaping rule: NostrStringEscaper.Rule? = nil
  ) -> Result<(end: Int, count: Int), Failure> {
    guard let base = bytes.baseAddress else { return .failure(.unterminated) }
    let end = bytes.count
    var position = start
    var written = 0
    while position < end {
      let runStart = position
      position = ByteScan.skipOrdinary(base, from: position, to: end)
      while position < end {
        let byte = base.load(fromByteOffset: position, as: UInt8.self)
        if byte == 0x22 || byte == 0x5C || byte < 0x20 { break }
        position += 1
      }
      (output + written).copyMemory(from: base + runStart, byteCount: position - runStart)
      written += position - runStart
      guard position < end else { break }
      let byte = base.load(fromByteOffset: position, as: UInt8.self)
      if byte == 0x22 { return .success((position + 1, written)) }
      if byte < 0x20 { return .failure(.controlCharacter(byte, offset: position)) }
      let escapeOffset = position
      position += 1
      guard position < end else { return .failure(.unterminatedEscape(offset: position)) }
      let letter = base.load(fromByteOffset: position, as: UInt8.self)
      position += 1
      let simple: UInt8
      switch letter {
      case UInt8(ascii: "\""): simple = 0x22
      case UInt8(ascii: "\\"): simple = 0x5C
      case UInt8(ascii: "/"): simple = 0x2F
      case UInt8(ascii: "b"): simple = 0x08
      case UInt8(ascii: "f"): simple = 0x0C
      case UInt8(ascii: "n"): simple = 0x0A
      case UInt8(ascii: "r"): simple = 0x0D
      case UInt8(ascii: "t"): simple = 0x09
      case UInt8(ascii: "u"):
        let unit: UInt16
        switch hexQuad(bytes, at: position) {
        case .success(let value): unit = value
        case .failure(let failure): return .failure(failure)
        }
        position += 4
        var scalarValue = UInt32(unit)
        if (0xD800...0xDBFF).contains(unit) {
          guard position + 1 < end, base.load(fromByteOffset: position, as: UInt8.self) == 0x5C,
            base.load(fromByteOffset: position + 1, as: UInt8.self) == UInt8(ascii: "u")
          else { return .failure(.loneSurrogate(unit, offset: escapeOffset)) }
          position += 2
          let low: UInt16
          switch hexQuad(bytes, at: position) {
          case .success(let value): low = value
          case .failure(let failure): return .failure(failure)
          }
          position += 4
          guard (0xDC00...0xDFFF).contains(low) else {
            return .failure(.loneSurrogate(unit, offset: escapeOffset))
          }
          scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(unit) {
          return .failure(.loneSurrogate(unit, offset: escapeOffset))
        }
        guard let scalar = Unicode.Scalar(scalarValue) else {
          return .failure(.loneSurrogate(unit, offset: escapeOffset))
        }
        for unit in UTF8.encode(scalar)! {
          written += put(unit, at: output + written, escaping: rule)
        }
        continue
      default:
        return .failure(.invalidEscape(letter, offset: position - 1))
      }
      written += put(simple, at: output + written, escaping: rule)
    }
    return .failure(.unterminated)
  }

  @inline(__always)
  private static func put(
    _ byte: UInt8, at output: UnsafeMutableRawPointer, escaping rule: NostrStringEscaper.Rule?
  )
    -> Int
  {
    guard let rule else {
      output.storeBytes(of: byte, as: UInt8.self)
      return 1
    }
    return NostrStringEscaper.writeDecodedByte(byte, rule: rule, to: output)
  }

  /// The four hex digits at `start` (either case).
  private static func hexQuad(_ bytes: UnsafeRawBufferPointer, at start: Int) -> Result<UInt16, Failure> {
    guard start + 4 <= bytes.count else { return .failure(.truncatedUnicodeEscape(offset: start)) }
    var value: UInt16 = 0
    for index in start..<(start + 4) {
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: return .failure(.invalidHexDigit(offset: index))
      }
      value = value << 4 | UInt16(digit)
    }
    return .success(value)
  }

  /// The string of the UTF-8 `bytes`, or nil when they are not well-formed UTF-8.
  package static func validatedString(_ bytes: UnsafeRawBufferPointer) -> String? {
    guard let base = bytes.baseAddress else { return "" }
    guard UTF8Text.isValid(base, count: bytes.count) else { return nil }
    return String(
      decoding: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count),
      as: UTF8.self)
  }
}
