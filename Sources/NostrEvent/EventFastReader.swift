import NostrJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the common shape of an event straight from JSON bytes into an `Event`, without
/// building a `JSONValue` tree first.
///
/// It accepts a strict subset of what `JSONReader` + `Event(jsonValue:)` accept and gives the
/// same `Event` for it: one object holding exactly the seven NIP-01 members (each once, names
/// written without escapes), hex fields of the right length, non-negative integers in range
/// without fraction or exponent, tags as arrays of strings, strings with valid escapes and valid
/// UTF-8, within the size bound. Anything else — an unknown member, a duplicate, an error of any
/// kind — returns nil, and the caller reads the document the general way, which gives the exact
/// error. So it changes speed, never an outcome.
struct EventFastReader {
  private let base: UnsafeRawPointer
  private let end: Int
  private var position = 0

  private init(base: UnsafeRawPointer, count: Int) {
    self.base = base
    self.end = count
  }

  /// The event in `buffer`, or nil when the document is not in the common shape (or not valid).
  static func read(_ buffer: UnsafeRawBufferPointer) -> Event? {
    guard buffer.count <= JSONReader.defaultMaxBytes, let base = buffer.baseAddress else { return nil }
    var reader = EventFastReader(base: base, count: buffer.count)
    return reader.readEvent()
  }

  // MARK: The object

  private enum Member: UInt8 {
    case id = 1
    case pubkey = 2
    case createdAt = 4
    case kind = 8
    case tags = 16
    case content = 32
    case sig = 64
  }

  private mutating func readEvent() -> Event? {
    skipWhitespace()
    guard take(UInt8(ascii: "{")) else { return nil }
    var seen: UInt8 = 0
    var id: String?
    var pubkey: String?
    var createdAt: Int64 = 0
    var kind = 0
    var tags: [[String]]?
    var content: String?
    var sig: String?
    repeat {
      skipWhitespace()
      guard let member = readMemberName(), seen & member.rawValue == 0 else { return nil }
      seen |= member.rawValue
      skipWhitespace()
      guard take(UInt8(ascii: ":")) else { return nil }
      skipWhitespace()
      switch member {
      case .id:
        guard let value = readHex(count: 64) else { return nil }
        id = value
      case .pubkey:
        guard let value = readHex(count: 64) else { return nil }
        pubkey = value
      case .sig:
        guard let value = readHex(count: 128) else { return nil }
        sig = value
      case .createdAt:
        guard let value = readInteger(maximum: Event.maxCreatedAt) else { return nil }
        createdAt = value
      case .kind:
        guard let value = readInteger(maximum: Int64(Event.maxKind)) else { return nil }
        kind = Int(value)
      case .tags:
        guard let value = readTags() else { return nil }
        tags = value
      case .content:
        guard let value = readString() else { return nil }
        content = value
      }
      skipWhitespace()
    } while take(UInt8(ascii: ","))
    guard take(UInt8(ascii: "}")) else { return nil }
    skipWhitespace()
    guard position == end, seen == 0x7F, let id, let pubkey, let tags, let content, let sig else {
      return nil
    }
    return Event(
      id: id, pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, sig: sig)
  }

  /// One of the seven names, written without escapes; nil for anything else.
  private mutating func readMemberName() -> Member? {
    guard take(UInt8(ascii: "\"")) else { return nil }
    let start = position
    while position < end, byte(at: position) != UInt8(ascii: "\""), position - start < 10 {
      position += 1
    }
    guard position < end, byte(at: position) == UInt8(ascii: "\"") else { return nil }
    let name = UnsafeRawBufferPointer(start: base + start, count: position - start)
    position += 1
    func matches(_ expected: StaticString) -> Bool {
      name.count == expected.utf8CodeUnitCount
        && memcmp(name.baseAddress!, expected.utf8Start, name.count) == 0
    }
    switch name.count {
    case 2 where matches("id"): return .id
    case 3 where matches("sig"): return .sig
    case 4 where matches("kind"): return .kind
    case 4 where matches("tags"): return .tags
    case 6 where matches("pubkey"): return .pubkey
    case 7 where matches("content"): return .content
    case 10 where matches("created_at"): return .createdAt
    default: return nil
    }
  }

  // MARK: Values

  /// Exactly `count` lowercase hex digits between quotes.
  private mutating func readHex(count: Int) -> String? {
    guard take(UInt8(ascii: "\"")), position + count < end else { return nil }
    let start = position
    for index in start..<(start + count) {
      let digit = byte(at: index)
      let isDigit = digit &- UInt8(ascii: "0") < 10
      let isLetter = digit &- UInt8(ascii: "a") < 6
      guard isDigit || isLetter else { return nil }
    }
    position = start + count
    guard take(UInt8(ascii: "\"")) else { return nil }
    return String(
      decoding: Self.bytes(UnsafeRawBufferPointer(start: base + start, count: count)), as: UTF8.self)
  }

  /// A non-negative JSON integer literal up to `maximum` (no sign, fraction or exponent).
  private mutating func readInteger(maximum: Int64) -> Int64? {
    guard position < end else { return nil }
    var value: Int64 = 0
    let start = position
    if byte(at: position) == UInt8(ascii: "0") {
      position += 1
    } else {
      while position < end, position - start < 17 {
        let digit = byte(at: position) &- UInt8(ascii: "0")
        guard digit < 10 else { break }
        value = value &* 10 &+ Int64(digit)
        position += 1
      }
    }
    guard position > start, value <= maximum, position < end else { return nil }
    switch byte(at: position) {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
      return nil
    default:
      return value
    }
  }

  /// An array of arrays of strings, at most `Event.maxTags` of them.
  private mutating func readTags() -> [[String]]? {
    guard take(UInt8(ascii: "[")) else { return nil }
    var tags: [[String]] = []
    skipWhitespace()
    if peekIsNot(UInt8(ascii: "]")) { tags.reserveCapacity(4) }
    if take(UInt8(ascii: "]")) { return tags }
    repeat {
      skipWhitespace()
      guard tags.count < Event.maxTags, take(UInt8(ascii: "[")) else { return nil }
      var tag: [String] = []
      // Most tags hold two to four strings; one allocation instead of three growths.
      tag.reserveCapacity(4)
      skipWhitespace()
      if !take(UInt8(ascii: "]")) {
        repeat {
          skipWhitespace()
          guard let value = readString() else { return nil }
          tag.append(value)
          skipWhitespace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { return nil }
      }
      tags.append(tag)
      skipWhitespace()
    } while take(UInt8(ascii: ","))
    guard take(UInt8(ascii: "]")) else { return nil }
    return tags
  }

  /// A JSON string: escapes decoded exactly, nil on a raw control byte, a bad escape, a lone
  /// surrogate or invalid UTF-8.
  private mutating func readString() -> String? {
    guard take(UInt8(ascii: "\"")) else { return nil }
    let start = position
    var escaped = false
    while true {
      position = ByteScan.skipOrdinary(base, from: position, to: end)
      guard position < end else { return nil }
      let next = byte(at: position)
      if next == UInt8(ascii: "\"") { break }
      if next == UInt8(ascii: "\\") {
        escaped = true
        position += 2
        continue
      }
      if next < 0x20 { return nil }
      position += 1
    }
    let raw = UnsafeRawBufferPointer(start: base + start, count: position - start)
    position += 1
    guard escaped else { return Self.makeString(raw) }
    // Decoded text is never longer than its escaped form.
    if raw.count <= 4096 {
      return withUnsafeTemporaryAllocation(byteCount: raw.count, alignment: 1) { scratch in
        Self.decodeEscapes(raw, into: scratch).flatMap { Self.makeString($0) }
      }
    }
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: raw.count, alignment: 1)
    defer { scratch.deallocate() }
    return Self.decodeEscapes(raw, into: scratch).flatMap { Self.makeString($0) }
  }

  /// The string of valid UTF-8 `bytes`, or nil when they are not valid UTF-8.
  private static func makeString(_ bytes: UnsafeRawBufferPointer) -> String? {
    var string = String(decoding: Self.bytes(bytes), as: UTF8.self)
    // `String(decoding:)` repairs invalid UTF-8; the input was valid exactly when nothing changed.
    let unchanged = string.withUTF8 { decoded in
      decoded.count == bytes.count
        && (bytes.isEmpty || memcmp(decoded.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
    }
    return unchanged ? string : nil
  }

  /// Decodes the escapes of `raw` (the bytes between the quotes) into `output`; the decoded
  /// bytes, or nil on an invalid escape or a lone surrogate.
  private static func decodeEscapes(
    _ raw: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
  ) -> UnsafeRawBufferPointer? {
    let source = raw.baseAddress!
    let target = output.baseAddress!
    var read = 0
    var written = 0
    while read < raw.count {
      // Copy the run up to the next backslash at once.
      let backslash = memchr(source + read, 0x5C, raw.count - read).map { UnsafeRawPointer($0) - source }
      let runEnd = backslash ?? raw.count
      (target + written).copyMemory(from: source + read, byteCount: runEnd - read)
      written += runEnd - read
      read = runEnd
      guard read < raw.count else { break }
      guard read + 1 < raw.count else { return nil }
      let letter = raw[read + 1]
      read += 2
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
        guard let unit = hexQuad(raw, at: read) else { return nil }
        read += 4
        var scalarValue = UInt32(unit)
        if (0xD800...0xDBFF).contains(unit) {
          guard read + 6 <= raw.count, raw[read] == UInt8(ascii: "\\"), raw[read + 1] == UInt8(ascii: "u"),
            let low = hexQuad(raw, at: read + 2), (0xDC00...0xDFFF).contains(low)
          else { return nil }
          read += 6
          scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(unit) {
          return nil
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { return nil }
        for unit in UTF8.encode(scalar)! {
          output[written] = unit
          written += 1
        }
        continue
      default:
        return nil
      }
      output[written] = simple
      written += 1
    }
    return UnsafeRawBufferPointer(rebasing: output[0..<written])
  }

  private static func hexQuad(_ raw: UnsafeRawBufferPointer, at start: Int) -> UInt16? {
    guard start + 4 <= raw.count else { return nil }
    var value: UInt16 = 0
    for index in start..<(start + 4) {
      let byte = raw[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: return nil
      }
      value = value << 4 | UInt16(digit)
    }
    return value
  }

  // MARK: Bytes

  /// `raw` as typed bytes, so that `String(decoding:)` takes its specialized path.
  @inline(__always)
  private static func bytes(_ raw: UnsafeRawBufferPointer) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
  }

  @inline(__always)
  private func byte(at index: Int) -> UInt8 {
    base.load(fromByteOffset: index, as: UInt8.self)
  }

  /// Whether the next byte exists and is not `byte`.
  @inline(__always)
  private func peekIsNot(_ byte: UInt8) -> Bool {
    position < end && self.byte(at: position) != byte
  }

  /// Consumes `expected` when it is the next byte.
  @inline(__always)
  private mutating func take(_ expected: UInt8) -> Bool {
    guard position < end, byte(at: position) == expected else { return false }
    position += 1
    return true
  }

  private mutating func skipWhitespace() {
    while position < end {
      switch byte(at: position) {
      case 0x20, 0x09, 0x0A, 0x0D: position += 1
      default: return
      }
    }
  }
}
