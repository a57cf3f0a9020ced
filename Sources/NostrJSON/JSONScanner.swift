#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The recursive-descent state of one `JSONReader.read` call.
///
/// Paths are attached to errors only while an error travels up, so the success path pays
/// nothing for them.
struct JSONScanner {
  private let bytes: UnsafeRawBufferPointer
  private let maxDepth: Int
  private var position = 0
  private var depth = 0

  init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
    self.bytes = bytes
    self.maxDepth = maxDepth
  }

  mutating func readDocument() throws(JSONError) -> JSONValue {
    skipWhitespace()
    let value = try readValue()
    skipWhitespace()
    guard position == bytes.count else {
      throw syntaxError("unexpected data after the JSON value")
    }
    return value
  }

  // MARK: Values

  private mutating func readValue() throws(JSONError) -> JSONValue {
    guard position < bytes.count else { throw syntaxError("unexpected end of input") }
    switch bytes[position] {
    case UInt8(ascii: "{"): return .object(try readObject())
    case UInt8(ascii: "["): return .array(try readArray())
    case UInt8(ascii: "\""): return .string(try readString())
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return try readNumber()
    default:
      throw syntaxError("unexpected character \(describe(bytes[position]))")
    }
  }

  private mutating func enterContainer() throws(JSONError) {
    depth += 1
    guard depth <= maxDepth else {
      throw JSONError(
        code: .tooDeep, offset: position, reason: "nesting deeper than \(maxDepth) levels")
    }
  }

  private mutating func readObject() throws(JSONError) -> JSONObject {
    try enterContainer()
    position += 1
    var members: [JSONMember] = []
    var seen: Set<String>? = nil
    skipWhitespace()
    if peek() == UInt8(ascii: "}") {
      position += 1
      depth -= 1
      return JSONObject(members)
    }
    while true {
      skipWhitespace()
      guard peek() == UInt8(ascii: "\"") else { throw syntaxError("expected a member name") }
      let keyOffset = position
      let key = try readString()
      // Small objects compare linearly; a set takes over once linear checks would cost more.
      if members.count >= 16 {
        if seen == nil { seen = Set(members.map(\.key)) }
        if !seen!.insert(key).inserted { throw duplicate(key, at: keyOffset) }
      } else if members.contains(where: { $0.key == key }) {
        throw duplicate(key, at: keyOffset)
      }
      skipWhitespace()
      guard peek() == UInt8(ascii: ":") else { throw syntaxError("expected ':' after a member name") }
      position += 1
      skipWhitespace()
      let value: JSONValue
      do {
        value = try readValue()
      } catch {
        throw error.prefixed(with: .key(key))
      }
      members.append(JSONMember(key: key, value: value))
      skipWhitespace()
      switch peek() {
      case UInt8(ascii: ","):
        position += 1
      case UInt8(ascii: "}"):
        position += 1
        depth -= 1
        return JSONObject(members)
      default:
        throw syntaxError("expected ',' or '}' in an object")
      }
    }
  }

  private func duplicate(_ key: String, at offset: Int) -> JSONError {
    JSONError(
      code: .duplicateKey, path: key, offset: offset, reason: "duplicate member name \"\(key)\"",
      duplicateKey: key)
  }

  private mutating func readArray() throws(JSONError) -> [JSONValue] {
    try enterContainer()
    position += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if peek() == UInt8(ascii: "]") {
      position += 1
      depth -= 1
      return elements
    }
    while true {
      skipWhitespace()
      do {
        elements.append(try readValue())
      } catch {
        throw error.prefixed(with: .index(elements.count))
      }
      skipWhitespace()
      switch peek() {
      case UInt8(ascii: ","):
        position += 1
      case UInt8(ascii: "]"):
        position += 1
        depth -= 1
        return elements
      default:
        throw syntaxError("expected ',' or ']' in an array")
      }
    }
  }

  // MARK: Strings

  private mutating func readString() throws(JSONError) -> String {
    position += 1  // opening quote
    let start = position
    // Fast path: no escapes, so the bytes between the quotes are the string.
    while position < bytes.count {
      position = ByteScan.skipOrdinary(bytes.baseAddress!, from: position, to: bytes.count)
      guard position < bytes.count else { break }
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
        position += 1
        return try makeString(slice, at: start)
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { throw controlCharacter(byte) }
      position += 1
    }
    guard position < bytes.count else {
      throw JSONError(code: .syntax, offset: start - 1, reason: "unterminated string")
    }
    var decoded: [UInt8] = []
    decoded.reserveCapacity(2 * (position - start) + 16)
    decoded.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
    while position < bytes.count {
      let byte = bytes[position]
      switch byte {
      case UInt8(ascii: "\""):
        position += 1
        return try decoded.withUnsafeBytes { buffer in
          Result { () throws(JSONError) in try makeString(buffer, at: start) }
        }.get()
      case UInt8(ascii: "\\"):
        try readEscape(into: &decoded)
      case 0..<0x20:
        throw controlCharacter(byte)
      default:
        // Copy the whole run up to the next quote, backslash or control byte at once.
        let runStart = position
        position += 1
        position = ByteScan.skipOrdinary(bytes.baseAddress!, from: position, to: bytes.count)
        while position < bytes.count {
          let next = bytes[position]
          if next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") || next < 0x20 { break }
          position += 1
        }
        decoded.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<position]))
      }
    }
    throw JSONError(code: .syntax, offset: start - 1, reason: "unterminated string")
  }

  private func makeString(_ utf8: UnsafeRawBufferPointer, at offset: Int) throws(JSONError) -> String {
    // `String(decoding:)` is specialized for byte buffers (the generic `String(validating:)` is
    // not); it repairs bad UTF-8, so the input was valid exactly when nothing was repaired.
    let bytes = UnsafeBufferPointer(
      start: utf8.baseAddress?.assumingMemoryBound(to: UInt8.self), count: utf8.count)
    var string = String(decoding: bytes, as: UTF8.self)
    let unchanged = string.withUTF8 { decoded in
      decoded.count == bytes.count
        && (bytes.isEmpty || memcmp(decoded.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
    }
    guard unchanged else {
      throw JSONError(code: .invalidUnicode, offset: offset, reason: "string is not valid UTF-8")
    }
    return string
  }

  private mutating func readEscape(into decoded: inout [UInt8]) throws(JSONError) {
    let escapeOffset = position
    position += 1
    guard position < bytes.count else { throw syntaxError("unterminated escape") }
    let letter = bytes[position]
    position += 1
    switch letter {
    case UInt8(ascii: "\""): decoded.append(0x22)
    case UInt8(ascii: "\\"): decoded.append(0x5C)
    case UInt8(ascii: "/"): decoded.append(0x2F)
    case UInt8(ascii: "b"): decoded.append(0x08)
    case UInt8(ascii: "f"): decoded.append(0x0C)
    case UInt8(ascii: "n"): decoded.append(0x0A)
    case UInt8(ascii: "r"): decoded.append(0x0D)
    case UInt8(ascii: "t"): decoded.append(0x09)
    case UInt8(ascii: "u"):
      let unit = try readHexQuad()
      var scalarValue = UInt32(unit)
      if (0xD800...0xDBFF).contains(unit) {
        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
          bytes[position + 1] == UInt8(ascii: "u")
        else {
          throw loneSurrogate(unit, at: escapeOffset)
        }
        position += 2
        let low = try readHexQuad()
        guard (0xDC00...0xDFFF).contains(low) else { throw loneSurrogate(unit, at: escapeOffset) }
        scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(unit) {
        throw loneSurrogate(unit, at: escapeOffset)
      }
      guard let scalar = Unicode.Scalar(scalarValue) else { throw loneSurrogate(unit, at: escapeOffset) }
      decoded.append(contentsOf: UTF8.encode(scalar)!)
    default:
      position -= 1
      throw syntaxError("invalid escape \\\(describe(letter))")
    }
  }

  private mutating func readHexQuad() throws(JSONError) -> UInt16 {
    guard position + 4 <= bytes.count else { throw syntaxError("truncated \\u escape") }
    var value: UInt16 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw syntaxError("invalid hex digit in a \\u escape")
      }
      value = value << 4 | UInt16(digit)
      position += 1
    }
    return value
  }

  private func loneSurrogate(_ unit: UInt16, at offset: Int) -> JSONError {
    let hex = String(unit, radix: 16)
    return JSONError(
      code: .invalidUnicode, offset: offset,
      reason: "\\u\(hex) is a lone surrogate, which cannot be UTF-8")
  }

  private func controlCharacter(_ byte: UInt8) -> JSONError {
    JSONError(
      code: .syntax, offset: position,
      reason: "raw control character \(describe(byte)) in a string (it must be escaped)")
  }

  // MARK: Numbers and literals

  private mutating func readNumber() throws(JSONError) -> JSONValue {
    let start = position
    var negative = false
    if bytes[position] == UInt8(ascii: "-") {
      negative = true
      position += 1
    }
    guard let first = peek(), isDigit(first) else { throw syntaxError("expected a digit") }
    var magnitude: UInt64 = 0
    var overflow = false
    if first == UInt8(ascii: "0") {
      position += 1
      if let next = peek(), isDigit(next) { throw syntaxError("leading zero in a number") }
    } else {
      while let byte = peek(), isDigit(byte) {
        let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
        let (sum, o2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
        if o1 || o2 { overflow = true }
        magnitude = sum
        position += 1
      }
    }
    var isInteger = true
    if peek() == UInt8(ascii: ".") {
      isInteger = false
      position += 1
      guard let digit = peek(), isDigit(digit) else { throw syntaxError("expected a digit after '.'") }
      while let byte = peek(), isDigit(byte) { position += 1 }
    }
    if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
      isInteger = false
      position += 1
      if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
      guard let digit = peek(), isDigit(digit) else { throw syntaxError("expected a digit in an exponent") }
      while let byte = peek(), isDigit(byte) { position += 1 }
    }
    if isInteger && !overflow {
      if negative {
        if magnitude <= UInt64(Int64.max) + 1 {
          return .integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        }
      } else if magnitude <= UInt64(Int64.max) {
        return .integer(Int64(magnitude))
      }
    }
    let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    guard let value = Double(text), value.isFinite else {
      throw JSONError(code: .syntax, offset: start, reason: "number \(text) is out of range")
    }
    return .float(value)
  }

  private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
    let count = literal.utf8CodeUnitCount
    guard position + count <= bytes.count else { throw syntaxError("unexpected end of input") }
    let expected = UnsafeRawBufferPointer(start: literal.utf8Start, count: count)
    for index in 0..<count where bytes[position + index] != expected[index] {
      throw syntaxError("invalid literal")
    }
    position += count
  }

  // MARK: Helpers

  private func peek() -> UInt8? {
    position < bytes.count ? bytes[position] : nil
  }

  private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }

  private mutating func skipWhitespace() {
    while position < bytes.count {
      switch bytes[position] {
      case 0x20, 0x09, 0x0A, 0x0D: position += 1
      default: return
      }
    }
  }

  private func syntaxError(_ reason: String) -> JSONError {
    JSONError(code: .syntax, offset: position, reason: reason)
  }

  private func describe(_ byte: UInt8) -> String {
    (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16)
  }
}
