import Foundation
import NostrJSON
import NostrPushTestSupport
import Testing

/// Seeded random documents through our writer and reader, with Foundation's reader as a second opinion.
@Suite struct ReaderDifferentialTests {
  static let cases = 3_000

  struct Generator {
    var random: SplitMix64

    static let pieces = [
      "a", "Z", " ", "\"", "\\", "/", "\n", "\u{0}", "\u{1F}", "\u{7F}", "\u{2028}", "é", "e\u{301}", "日本",
      "🦩", "👩‍💻", "\u{FEFF}", "\u{FFFF}", "\u{10FFFF}", "\\u0000",
    ]
    static let integers: [Int64] = [0, -1, 1, Int64.max, Int64.min, 1 << 53, -(1 << 53)]
    static let floats: [Double] = [
      0.5, -0.0, 1e300, -1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, 1.0 / 3.0, 1e16,
      123_456_789.125,
    ]

    mutating func text() -> String {
      (0..<Int.random(in: 0...6, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }
        .joined()
    }

    mutating func value(depth: Int = 0) -> JSONValue {
      switch Int.random(in: 0..<(depth < 5 ? 8 : 6), using: &random) {
      case 0: return .null
      case 1: return .bool(Bool.random(using: &random))
      case 2:
        return .integer(
          Bool.random(using: &random)
            ? Self.integers.randomElement(using: &random)! : Int64(bitPattern: random.next()) >> 20)
      case 3:
        return .float(
          Bool.random(using: &random)
            ? Self.floats.randomElement(using: &random)!
            : Double(Int64(bitPattern: random.next()) >> 11) * 0x1p-30)
      case 4, 5: return .string(text())
      case 6: return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in value(depth: depth + 1) })
      default:
        let count = Int.random(in: 0...4, using: &random)
        return .object(
          JSONObject((0..<count).map { JSONMember(key: "k\($0)" + "é", value: value(depth: depth + 1)) }))
      }
    }

    /// `text` with one to three bytes replaced, inserted or deleted.
    mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
      let alphabet = Array(#"{}[]:,"\ 0123456789.eE+-tfnul"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xED, 0xFF]
      var bytes = bytes
      for _ in 0..<Int.random(in: 1...3, using: &random) {
        let position = Int.random(in: 0...bytes.count, using: &random)
        let byte = alphabet.randomElement(using: &random)!
        switch Int.random(in: 0..<3, using: &random) {
        case 0 where position < bytes.count: bytes[position] = byte
        case 1 where position < bytes.count: bytes.remove(at: position)
        default: bytes.insert(byte, at: position)
        }
      }
      return bytes
    }
  }

  /// Whether Foundation's reading `theirs` is the value `ours`: strings compared as exact UTF-8,
  /// numbers exactly, except for two known swift-corelibs-foundation quirks on Linux — it drops a
  /// U+FEFF that opens a string or follows an escape, so U+FEFF is left out on both sides, and it
  /// reads numbers with 17 significant digits as `NSDecimalNumber`, whose `doubleValue` can be off
  /// in the last place.
  static func agrees(_ ours: JSONValue, _ theirs: Any) -> Bool {
    switch ours {
    case .null: return theirs is NSNull
    case .bool(let flag): return (theirs as? NSNumber)?.boolValue == flag
    case .integer(let number): return (theirs as? NSNumber)?.int64Value == number
    case .float(let number):
      if let decimal = theirs as? NSDecimalNumber {
        return abs(decimal.doubleValue - number) <= abs(number).ulp * 4
      }
      return (theirs as? NSNumber)?.doubleValue == number
    case .string(let text):
      return (theirs as? String).map(withoutBOM) == withoutBOM(text)
    case .array(let elements):
      guard let items = theirs as? [Any], items.count == elements.count else { return false }
      return zip(elements, items).allSatisfy { agrees($0, $1) }
    case .object(let object):
      guard let dictionary = theirs as? [String: Any], dictionary.count == object.count else { return false }
      return object.members.allSatisfy { member in
        dictionary[member.key].map { agrees(member.value, $0) } ?? false
      }
    }
  }

  /// The scalars of `text` other than U+FEFF.
  static func withoutBOM(_ text: String) -> [Unicode.Scalar] {
    text.unicodeScalars.filter { $0 != "\u{FEFF}" }
  }

  @Test func readsEveryWrittenValueBackExactly() throws {
    var generator = Generator(random: SplitMix64(seed: 0x4A53_0001))
    for _ in 0..<Self.cases {
      let value = generator.value()
      let bytes = JSONWriter.bytes(value)
      let reread = try JSONReader().read(bytes)
      #expect(reread == value, "\(String(decoding: bytes, as: UTF8.self))")
      #expect(JSONWriter.bytes(reread) == bytes)
    }
  }

  @Test func writesWhatFoundationReadsToTheSameValue() throws {
    var generator = Generator(random: SplitMix64(seed: 0x4A53_0002))
    for _ in 0..<Self.cases {
      let value = generator.value()
      let bytes = JSONWriter.bytes(value)
      let theirs = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
      #expect(Self.agrees(value, theirs), "\(String(decoding: bytes, as: UTF8.self))")
    }
  }

  @Test func acceptsNoMutatedDocumentThatFoundationRefusesOrReadsDifferently() throws {
    var generator = Generator(random: SplitMix64(seed: 0x4A53_0003))
    var accepted = 0
    var refused = 0
    for _ in 0..<Self.cases {
      let bytes = generator.mutate(JSONWriter.bytes(generator.value()))
      guard let ours = try? JSONReader().read(bytes) else {
        refused += 1
        continue
      }
      accepted += 1
      let theirs = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
      #expect(theirs.map { Self.agrees(ours, $0) } == true, "\(String(decoding: bytes, as: UTF8.self))")
    }
    #expect(accepted > Self.cases / 10 && refused > Self.cases / 10)
  }
}
