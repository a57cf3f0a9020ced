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
        code: .tooDeep, offset: position, message: "nesting deeper than \(maxDepth) levels")
    }
  }

  private mutating func readObject() throws(JSONError) -> JSONObject {
    try enterContainer()
    position += 1
    var members: [JSONMember] = []
    var seen: Set<String>? = nil
    skipWhitespace()
    if closes(at: UInt8(ascii: "}")) { return JSONObject(members) }
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
      if try endsAfterElement(closing: UInt8(ascii: "}"), in: "an object") { return JSONObject(members) }
    }
  }

  /// Leaves the container when the next byte is its `closing` one.
  private mutating func closes(at closing: UInt8) -> Bool {
    guard peek() == closing else { return false }
    position += 1
    depth -= 1
    return true
  }

  /// After an element of a container: consumes `,` (false: another element follows) or the
  /// `closing` byte (true); anything else is a syntax error.
  private mutating func endsAfterElement(closing: UInt8, in container: String) throws(JSONError) -> Bool {
    skipWhitespace()
    if peek() == UInt8(ascii: ",") {
      position += 1
      return false
    }
    guard closes(at: closing) else {
      throw syntaxError("expected ',' or '\(Character(Unicode.Scalar(closing)))' in \(container)")
    }
    return true
  }

  private func duplicate(_ key: String, at offset: Int) -> JSONError {
    JSONError(
      code: .duplicateKey, field: JSONPathComponent.key(key).text, offset: offset,
      message: "duplicate member name \"\(key)\"",
      duplicateKey: key)
  }

  private mutating func readArray() throws(JSONError) -> [JSONValue] {
    try enterContainer()
    position += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if closes(at: UInt8(ascii: "]")) { return elements }
    while true {
      skipWhitespace()
      do {
        elements.append(try readValue())
      } catch {
        throw error.prefixed(with: .index(elements.count))
      }
      if try endsAfterElement(closing: UInt8(ascii: "]"), in: "an array") { return elements }
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
      throw JSONError(code: .syntax, offset: start - 1, message: "unterminated string")
    }
    // Escapes: decode the body once into a buffer as long as its escaped form.
    let capacity = (JSONStringDecoder.closingQuote(bytes, from: position) ?? bytes.count) - start
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(capacity, 1), alignment: 1)
    defer { scratch.deallocate() }
    switch JSONStringDecoder.decode(bytes, from: start, into: scratch.baseAddress!) {
    case .success(let (end, count)):
      position = end
      return try makeString(UnsafeRawBufferPointer(rebasing: scratch[0..<count]), at: start)
    case .failure(let failure):
      throw error(for: failure, stringStart: start)
    }
  }

  /// The reader's error for a string body that does not decode.
  private mutating func error(for failure: JSONStringDecoder.Failure, stringStart start: Int) -> JSONError {
    switch failure {
    case .controlCharacter(let byte, let offset):
      position = offset
      return controlCharacter(byte)
    case .unterminatedEscape(let offset):
      position = offset
      return syntaxError("unterminated escape")
    case .invalidEscape(let letter, let offset):
      position = offset
      return syntaxError("invalid escape \\\(describe(letter))")
    case .truncatedUnicodeEscape(let offset):
      position = offset
      return syntaxError("truncated \\u escape")
    case .invalidHexDigit(let offset):
      position = offset
      return syntaxError("invalid hex digit in a \\u escape")
    case .loneSurrogate(let unit, let offset):
      return loneSurrogate(unit, at: offset)
    case .unterminated:
      return JSONError(code: .syntax, offset: start - 1, message: "unterminated string")
    }
  }

  private func makeString(_ utf8: UnsafeRawBufferPointer, at offset: Int) throws(JSONError) -> String {
    guard let string = JSONStringDecoder.validatedString(utf8) else {
      throw JSONError(code: .invalidUnicode, offset: offset, message: "string is not valid UTF-8")
    }
    return string
  }

  private func loneSurrogate(_ unit: UInt16, at offset: Int) -> JSONError {
    let hex = String(unit, radix: 16)
    return JSONError(
      code: .invalidUnicode, offset: offset,
      message: "\\u\(hex) is a lone surrogate, which cannot be UTF-8")
  }

  private func controlCharacter(_ byte: UInt8) -> JSONError {
    JSONError(
      code: .syntax, offset: position,
      message: "raw control character \(describe(byte)) in a string (it must be escaped)")
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
      throw JSONError(code: .syntax, offset: start, message: "number \(text) is out of range")
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
    JSONError(code: .syntax, offset: position, message: reason)
  }

  private func describe(_ byte: UInt8) -> String {
    (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16)
  }
}
