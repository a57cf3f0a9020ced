import NostrJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the common shape of an event straight from JSON bytes, without building a `JSONValue`
/// tree first.
///
/// It accepts a strict subset of what `JSONReader` + `Event(jsonValue:)` accept and gives the
/// same `Event` for it: one object holding exactly the seven NIP-01 members (each once, names
/// written without escapes), hex fields of the right length, non-negative integers in range
/// without fraction or exponent, tags as arrays of strings, strings with valid escapes and valid
/// UTF-8, within the size bound. Anything else — an unknown member, a duplicate, an error of any
/// kind — gives nil, and the caller reads the document the general way, which gives the exact
/// error. So it changes speed, never an outcome.
///
/// Reading happens in two steps: `readFields` checks the structure and locates every member in
/// the bytes (`EventFields`); then either `event(_:)` builds the `Event`, or `EventDocumentVerifier`
/// writes the canonical serialization straight from the located bytes. String escapes are
/// decoded by NostrJSON's `JSONStringDecoder`, the one implementation the general reader uses.
package struct EventFastReader {
  private let base: UnsafeRawPointer
  let end: Int
  var position = 0
  /// Element bounds enforced while locating (nil: only `Event.maxTags`); see ``EventReadLimits``.
  var limits: EventReadLimits?
  /// Set when a bound of `limits` refused the element being located (not a shape problem).
  var exceededLimit = false

  init(_ buffer: UnsafeRawBufferPointer, at position: Int = 0) {
    self.base = buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
    self.end = buffer.count
    self.position = position
  }

  /// The whole document being read.
  var documentBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: end) }

  /// The event in `buffer`, or nil when the document is not in the common shape (or not valid).
  static func read(_ buffer: UnsafeRawBufferPointer) -> Event? {
    guard buffer.count <= JSONReader.defaultMaxBytes, buffer.baseAddress != nil else { return nil }
    var reader = EventFastReader(buffer)
    guard let fields = reader.readDocument() else { return nil }
    return reader.event(fields)
  }

  // MARK: Locating the members

  private enum Member: UInt8 {
    case id = 1
    case pubkey = 2
    case createdAt = 4
    case kind = 8
    case tags = 16
    case content = 32
    case sig = 64
  }

  /// The whole input as one event object (whitespace around it allowed).
  mutating func readDocument() -> EventFields? {
    skipWhitespace()
    guard let fields = readFields() else { return nil }
    skipWhitespace()
    return position == end ? fields : nil
  }

  /// The event object at the reading position; the position is then just after its `}`.
  mutating func readFields() -> EventFields? {
    guard take(UInt8(ascii: "{")) else { return nil }
    var seen: UInt8 = 0
    var fields = EventFields()
    repeat {
      skipWhitespace()
      guard let member = readMemberName(), seen & member.rawValue == 0 else { return nil }
      seen |= member.rawValue
      skipWhitespace()
      guard take(UInt8(ascii: ":")) else { return nil }
      skipWhitespace()
      switch member {
      case .id:
        guard let offset = readHex(count: 64) else { return nil }
        fields.id = offset
      case .pubkey:
        guard let offset = readHex(count: 64) else { return nil }
        fields.pubkey = offset
      case .sig:
        guard let offset = readHex(count: 128) else { return nil }
        fields.sig = offset
      case .createdAt:
        guard let value = readInteger(maximum: Event.maxCreatedAt) else { return nil }
        fields.createdAt = value
      case .kind:
        guard let value = readInteger(maximum: Int64(Event.maxKind)) else { return nil }
        fields.kind = Int(value)
      case .tags:
        let start = position
        guard let count = skipTags() else { return nil }
        fields.tags = start..<position
        fields.tagCount = count
      case .content:
        guard let span = readString() else { return nil }
        if let limits, span.count > limits.maxStringBytes {
          exceededLimit = true
          return nil
        }
        fields.content = span
      }
      skipWhitespace()
    } while take(UInt8(ascii: ","))
    guard take(UInt8(ascii: "}")), seen == 0x7F else { return nil }
    return fields
  }

  /// One of the seven names, written without escapes; nil for anything else.
  private mutating func readMemberName() -> Member? {
    guard take(UInt8(ascii: "\"")) else { return nil }
    let start = position
    while position < end, byte(at: position) != UInt8(ascii: "\""), position - start < 10 {
      position += 1
    }
    guard position < end, byte(at: position) == UInt8(ascii: "\"") else { return nil }
    let count = position - start
    position += 1
    func matches(_ expected: StaticString) -> Bool {
      count == expected.utf8CodeUnitCount && memcmp(base + start, expected.utf8Start, count) == 0
    }
    switch count {
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

  /// Exactly `count` lowercase hex digits between quotes; the offset of the first digit.
  private mutating func readHex(count: Int) -> Int? {
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
    return start
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

  /// Steps over an array of arrays of strings, at most `Event.maxTags` of them (and within
  /// `limits` when set); their number.
  private mutating func skipTags() -> Int? {
    guard take(UInt8(ascii: "[")) else { return nil }
    skipWhitespace()
    if take(UInt8(ascii: "]")) { return 0 }
    var count = 0
    let maxTags = limits?.maxTagsPerEvent ?? Event.maxTags
    repeat {
      skipWhitespace()
      guard count < maxTags else {
        exceededLimit = limits != nil
        return nil
      }
      guard take(UInt8(ascii: "[")) else { return nil }
      skipWhitespace()
      if !take(UInt8(ascii: "]")) {
        var elements = 0
        repeat {
          skipWhitespace()
          guard let span = readString() else { return nil }
          elements += 1
          if let limits, elements > limits.maxTagElements || span.count > limits.maxStringBytes {
            exceededLimit = true
            return nil
          }
          skipWhitespace()
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { return nil }
      }
      count += 1
      skipWhitespace()
    } while take(UInt8(ascii: ","))
    guard take(UInt8(ascii: "]")) else { return nil }
    return count
  }

  /// Steps over a JSON string (nil on a raw control byte or a missing closing quote); escapes
  /// and UTF-8 are checked when the span is used.
  mutating func readString() -> StringSpan? {
    guard take(UInt8(ascii: "\"")) else { return nil }
    let start = position
    var escaped = false
    // The OR of every byte stepped over: no high bit set means ASCII, which needs no UTF-8 check.
    var seen: UInt64 = 0
    while true {
      // Bytes after the special one are counted too: at worst a needless UTF-8 check.
      position = ByteScan.skipOrdinary(base, from: position, to: end, seen: &seen)
      guard position < end else { return nil }
      let next = byte(at: position)
      if next == UInt8(ascii: "\"") { break }
      if next == UInt8(ascii: "\\") {
        escaped = true
        position += 2
        continue
      }
      if next < 0x20 { return nil }
      seen |= UInt64(next)
      position += 1
    }
    position += 1
    return StringSpan(
      start: start, count: position - 1 - start, escaped: escaped, ascii: seen & 0x8080_8080_8080_8080 == 0)
  }

  // MARK: Building the event

  /// The `Event` of located fields, or nil when a string's escapes or UTF-8 are not valid.
  func event(_ fields: EventFields) -> Event? {
    guard let content = string(fields.content) else { return nil }
    var tags: [[String]] = []
    tags.reserveCapacity(fields.tagCount)
    var tag: [String] = []
    var failed = false
    forEachTagElement(fields.tags) { element in
      switch element {
      case .open:
        // Most tags hold two to four strings; one allocation instead of three growths.
        tag = []
        tag.reserveCapacity(4)
      case .string(let span):
        guard let value = string(span) else {
          failed = true
          return false
        }
        tag.append(value)
      case .close:
        tags.append(tag)
      }
      return true
    }
    guard !failed else { return nil }
    return Event(
      id: hexString(fields.id, count: 64), pubkey: hexString(fields.pubkey, count: 64),
      createdAt: fields.createdAt, kind: fields.kind, tags: tags, content: content,
      sig: hexString(fields.sig, count: 128))
  }

  private func hexString(_ offset: Int, count: Int) -> String {
    String(
      decoding: UnsafeBufferPointer(start: (base + offset).assumingMemoryBound(to: UInt8.self), count: count),
      as: UTF8.self)
  }

  /// The decoded string of `span`, or nil on a bad escape or invalid UTF-8.
  func string(_ span: StringSpan) -> String? {
    guard span.escaped else {
      let raw = bytes(span)
      guard span.ascii else { return JSONStringDecoder.validatedString(raw) }
      return String(
        decoding: UnsafeBufferPointer(
          start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: raw.count), as: UTF8.self)
    }
    // Decoded text is never longer than its escaped form.
    return withDecoded(span) { $0.flatMap(JSONStringDecoder.validatedString) }
  }

  /// Calls `body` with the decoded bytes of an escaped `span` (nil on a bad escape).
  func withDecoded<Result>(_ span: StringSpan, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
    if span.count <= 1024 {
      return withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 1) { scratch in
        body(decode(span, into: scratch))
      }
    }
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: span.count, alignment: 1)
    defer { scratch.deallocate() }
    return body(decode(span, into: scratch))
  }

  /// The decoded bytes of `span` in `scratch` (room for `span.count` bytes), or nil on a bad escape.
  private func decode(_ span: StringSpan, into scratch: UnsafeMutableRawBufferPointer)
    -> UnsafeRawBufferPointer?
  {
    guard
      case .success(let (_, count)) = JSONStringDecoder.decode(
        documentBytes, from: span.start, into: scratch.baseAddress!)
    else { return nil }
    return UnsafeRawBufferPointer(rebasing: scratch[0..<count])
  }

  /// The raw bytes between the quotes of `span`.
  func bytes(_ span: StringSpan) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: base + span.start, count: span.count)
  }

  /// The parts of a tags array located by `readFields`, in order.
  enum TagElement {
    /// The start of one tag.
    case open
    /// One string of the current tag.
    case string(StringSpan)
    /// The end of one tag.
    case close
  }

  /// Walks the tags array in `range` (already checked by `readFields`), calling `body` for each
  /// part until it returns false.
  func forEachTagElement(_ range: Range<Int>, _ body: (TagElement) -> Bool) {
    var walker = EventFastReader(documentBytes, at: range.lowerBound + 1)
    let last = range.upperBound - 1
    while walker.position < last {
      switch walker.byte(at: walker.position) {
      case UInt8(ascii: "["):
        walker.position += 1
        guard body(.open) else { return }
      case UInt8(ascii: "]"):
        walker.position += 1
        guard body(.close) else { return }
      case UInt8(ascii: "\""):
        guard let span = walker.readString(), body(.string(span)) else { return }
      default:
        walker.position += 1
      }
    }
  }

  // MARK: Bytes

  @inline(__always)
  func byte(at index: Int) -> UInt8 {
    base.load(fromByteOffset: index, as: UInt8.self)
  }

  /// Consumes `expected` when it is the next byte.
  @inline(__always)
  mutating func take(_ expected: UInt8) -> Bool {
    guard position < end, byte(at: position) == expected else { return false }
    position += 1
    return true
  }

  mutating func skipWhitespace() {
    while position < end {
      switch byte(at: position) {
      case 0x20, 0x09, 0x0A, 0x0D: position += 1
      default: return
      }
    }
  }
}

/// A JSON string located in a document: the bytes between its quotes.
struct StringSpan {
  var start = 0
  var count = 0
  /// Whether the bytes hold a backslash (so they must be decoded before use).
  var escaped = false
  /// Whether every byte is ASCII (so the string is valid UTF-8 without a check).
  var ascii = false
}

/// Where `EventFastReader.readFields` found each member of an event in its document.
struct EventFields {
  /// The offset of the id's 64 lowercase hex digits.
  var id = 0
  /// The offset of the pubkey's 64 lowercase hex digits.
  var pubkey = 0
  /// The offset of the signature's 128 lowercase hex digits.
  var sig = 0
  var createdAt: Int64 = 0
  var kind = 0
  /// The tags array, brackets included.
  var tags: Range<Int> = 0..<0
  /// The number of tags.
  var tagCount = 0
  var content = StringSpan()
}
