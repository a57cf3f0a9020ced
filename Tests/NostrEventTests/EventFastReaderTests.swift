import NostrJSON
import Testing

@testable import NostrEvent

/// A small seeded generator, so that every run checks the same documents.
struct SeededRandom: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Random events written as JSON in many legal ways, then mutated byte by byte.
struct DocumentGenerator {
  var random: SeededRandom

  static let pieces: [String] = [
    "a", "nostr", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{00}", "\u{01}", "\u{1F}",
    "\u{7F}", "é", "日本", "\u{2028}", "🎉", "👍🏽", "𝄞", "\u{FFFD}", "\u{10FFFF}",
  ]
  static let mutationBytes: [UInt8] =
    Array(#"{}[],:"\u0123456789-+.eEaAfF/ntrbx "#.utf8) + [
      0x00, 0x01, 0x09, 0x0A, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE2, 0xED, 0xF0, 0xF4, 0xFF,
    ]

  mutating func hex(_ count: Int) -> String {
    String((0..<count).map { _ in "0123456789abcdef".randomElement(using: &random)! })
  }

  mutating func text() -> String {
    (0..<Int.random(in: 0...12, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }
      .joined()
  }

  mutating func event() -> Event {
    let tags = (0..<Int.random(in: 0...4, using: &random)).map { _ in
      (0..<Int.random(in: 0...4, using: &random)).map { _ in text() }
    }
    return Event(
      id: hex(64), pubkey: hex(64), createdAt: Int64.random(in: 0...Event.maxCreatedAt, using: &random),
      kind: Int.random(in: 0...Event.maxKind, using: &random), tags: tags, content: text(), sig: hex(128))
  }

  /// Some legal whitespace, or none.
  mutating func space() -> String {
    Int.random(in: 0..<4, using: &random) == 0
      ? [" ", "\n", "\t ", "\r\n"].randomElement(using: &random)! : ""
  }

  /// `text` as a JSON string, each scalar written raw, with a short escape or as `\u` (pairs for
  /// astral scalars), chosen at random where JSON allows a choice.
  mutating func quoted(_ text: String) -> String {
    var output = "\""
    for scalar in text.unicodeScalars {
      let mustEscape = scalar.value < 0x20 || scalar == "\"" || scalar == "\\"
      let choice = Int.random(in: 0..<4, using: &random)
      if !mustEscape && choice > 0 {
        output.unicodeScalars.append(scalar)
      } else if choice < 2, let short = Self.shortEscape(scalar) {
        output += short
      } else if scalar.value > 0xFFFF {
        let value = scalar.value - 0x10000
        output += Self.unicodeEscape(0xD800 + (value >> 10), uppercase: choice == 1)
        output += Self.unicodeEscape(0xDC00 + (value & 0x3FF), uppercase: choice == 0)
      } else {
        output += Self.unicodeEscape(scalar.value, uppercase: choice == 1)
      }
    }
    return output + "\""
  }

  static func shortEscape(_ scalar: Unicode.Scalar) -> String? {
    switch scalar {
    case "\"": #"\""#
    case "\\": #"\\"#
    case "/": #"\/"#
    case "\n": #"\n"#
    case "\r": #"\r"#
    case "\t": #"\t"#
    case "\u{08}": #"\b"#
    case "\u{0C}": #"\f"#
    default: nil
    }
  }

  static func unicodeEscape(_ value: UInt32, uppercase: Bool) -> String {
    let hex = String(value, radix: 16)
    return "\\u" + String(repeating: "0", count: 4 - hex.count) + (uppercase ? hex.uppercased() : hex)
  }

  /// The event as a JSON document with its members in a random order; hex fields are written
  /// plainly unless `escapeHex` (legal, but left to the general reader).
  mutating func document(_ event: Event, escapeHex: Bool = false) -> [UInt8] {
    let hex = { (generator: inout DocumentGenerator, text: String) in
      escapeHex ? generator.quoted(text) : "\"" + text + "\""
    }
    let tags = event.tags.map { tag in
      "[" + space() + tag.map { quoted($0) }.joined(separator: space() + "," + space()) + space() + "]"
    }
    var members = [
      "\"id\":" + hex(&self, event.id), "\"pubkey\":" + space() + hex(&self, event.pubkey),
      "\"created_at\"" + space() + ":\(event.createdAt)", "\"kind\":\(event.kind)" + space(),
      "\"tags\":[" + tags.joined(separator: ",") + "]", "\"content\":" + quoted(event.content),
      "\"sig\":" + hex(&self, event.sig),
    ]
    members.shuffle(using: &random)
    return Array((space() + "{" + members.joined(separator: space() + "," + space()) + "}" + space()).utf8)
  }

  /// One to three random edits: a byte replaced, inserted or deleted, a span repeated, or the
  /// document cut short.
  mutating func mutate(_ document: [UInt8]) -> [UInt8] {
    var bytes = document
    for _ in 0..<Int.random(in: 1...3, using: &random) where !bytes.isEmpty {
      let index = Int.random(in: 0..<bytes.count, using: &random)
      switch Int.random(in: 0..<5, using: &random) {
      case 0: bytes[index] = Self.mutationBytes.randomElement(using: &random)!
      case 1: bytes.insert(Self.mutationBytes.randomElement(using: &random)!, at: index)
      case 2: bytes.remove(at: index)
      case 3:
        let end = min(bytes.count, index + Int.random(in: 1...40, using: &random))
        bytes.insert(contentsOf: bytes[index..<end], at: end)
      default: bytes.removeSubrange(index...)
      }
    }
    return bytes
  }
}

@Suite struct EventFastReaderTests {
  /// The general path: the strict reader's tree, then the field checks.
  static func generalRead(_ document: [UInt8]) -> Result<Event, EventError> {
    Result { () throws(EventError) in
      switch Result(catching: { () throws(JSONError) in try JSONReader().read(document) }) {
      case .success(let value): return try Event(jsonValue: value)
      case .failure(let error): throw Event.malformed(error)
      }
    }
  }

  @Test func readsEveryLegalSpellingOfAnEventAsTheGeneralReaderDoes() {
    var generator = DocumentGenerator(random: SeededRandom(state: 0x6576_656e_7431))
    for _ in 0..<3_000 {
      let event = generator.event()
      let document = generator.document(event)
      let fast = document.withUnsafeBytes { EventFastReader.read($0) }
      #expect(fast == event, "\(String(decoding: document, as: UTF8.self))")
      #expect((try? Self.generalRead(document).get()) == event)
    }
  }

  @Test func agreesWithTheGeneralReaderOnMutatedDocuments() {
    var generator = DocumentGenerator(random: SeededRandom(state: 0x6d75_7461_7465))
    var fastAccepted = 0
    var generalAccepted = 0
    for _ in 0..<20_000 {
      let escapeHex = Int.random(in: 0..<8, using: &generator.random) == 0
      let document = generator.mutate(generator.document(generator.event(), escapeHex: escapeHex))
      let general = Self.generalRead(document)
      if case .success = general { generalAccepted += 1 }
      if let fast = document.withUnsafeBytes({ EventFastReader.read($0) }) {
        fastAccepted += 1
        #expect(general == .success(fast), "\(String(decoding: document, as: UTF8.self))")
      }
      // The public entry point gives exactly the general outcome, error code and field included.
      let publicResult = Result { () throws(EventError) in try Event(json: document) }
      #expect(publicResult == general, "\(String(decoding: document, as: UTF8.self))")
    }
    // Mutations that keep the event valid (whitespace, a changed hex digit …) still take the fast path.
    #expect(fastAccepted > 0)
    #expect(fastAccepted <= generalAccepted)
  }

  @Test func leavesUnknownMembersAndDuplicatesToTheGeneralReader() throws {
    let plain = EventParsingTests.document()
    #expect(Array(plain.utf8).withUnsafeBytes { EventFastReader.read($0) } != nil)
    let unknown = EventParsingTests.document(extra: #","extra":{"a":1}"#)
    #expect(Array(unknown.utf8).withUnsafeBytes { EventFastReader.read($0) } == nil)
    #expect(try Event(json: unknown).content == "hi")
    let duplicate = EventParsingTests.document(extra: #","content":"other""#)
    #expect(Array(duplicate.utf8).withUnsafeBytes { EventFastReader.read($0) } == nil)
    let error = #expect(throws: EventError.self) { try Event(json: duplicate) }
    #expect(error?.code == .malformedJSON)
    let nestedDuplicate = EventParsingTests.document(extra: #","extra":{"a":1,"a":2}"#)
    #expect(#expect(throws: EventError.self) { try Event(json: nestedDuplicate) }?.code == .malformedJSON)
  }

  @Test func refusesALoneSurrogateOnBothPaths() {
    let document = Array(EventParsingTests.document(content: #""\ud800x""#).utf8)
    #expect(document.withUnsafeBytes { EventFastReader.read($0) } == nil)
    #expect(#expect(throws: EventError.self) { try Event(json: document) }?.code == .malformedJSON)
  }
}
