import NostrEvent
import NostrJSON
import NostrPushTestSupport
import Testing

/// Seeded random filters through JSON and back, and their matching against a plain reading of NIP-01.
@Suite struct FilterRoundTripTests {
  static let cases = 2_000
  /// Small value sets, so random filters and events agree often enough to test both outcomes.
  static let hexes = ["a", "b", "c"].map { String(repeating: $0, count: 64) }
  static let kinds = [0, 1, 9, 65535]
  static let letters = ["e", "p", "t", "Z"]
  static let values = ["x", "y", "", "é"]

  struct Generator {
    var random: SplitMix64

    mutating func subset<T>(_ items: [T]) -> [T] {
      items.filter { _ in Bool.random(using: &random) }
    }

    mutating func maybe<T>(_ make: (inout Generator) -> T) -> T? {
      Bool.random(using: &random) ? make(&self) : nil
    }

    mutating func filter() -> Filter {
      var tags: [String: [String]] = [:]
      for letter in FilterRoundTripTests.letters where Int.random(in: 0..<3, using: &random) == 0 {
        tags[letter] = subset(FilterRoundTripTests.values)
      }
      return Filter(
        ids: maybe { $0.subset(FilterRoundTripTests.hexes) },
        authors: maybe { $0.subset(FilterRoundTripTests.hexes) },
        kinds: maybe { $0.subset(FilterRoundTripTests.kinds) }, tags: tags,
        since: maybe { Int64.random(in: 0...10, using: &$0.random) },
        until: maybe { Int64.random(in: 0...10, using: &$0.random) },
        limit: maybe { Int.random(in: 0...Int(Int32.max), using: &$0.random) })
    }

    mutating func event() throws -> Event {
      let tags = (0..<Int.random(in: 0...3, using: &random)).map { _ in
        [FilterRoundTripTests.letters.randomElement(using: &random)!]
          + (Bool.random(using: &random) ? [FilterRoundTripTests.values.randomElement(using: &random)!] : [])
      }
      let object = JSONValue.object(
        JSONObject([
          "id": .string(FilterRoundTripTests.hexes.randomElement(using: &random)!),
          "pubkey": .string(FilterRoundTripTests.hexes.randomElement(using: &random)!),
          "created_at": .integer(Int64.random(in: 0...10, using: &random)),
          "kind": .integer(Int64(FilterRoundTripTests.kinds.randomElement(using: &random)!)),
          "tags": .array(tags.map { .array($0.map { .string($0) }) }), "content": .string(""),
          "sig": .string(String(repeating: "0", count: 128)),
        ]))
      return try Event(jsonValue: object)
    }
  }

  /// NIP-01 matching read word for word: every given condition holds.
  static func plainMatch(_ filter: Filter, _ event: Event) -> Bool {
    let idOK = filter.ids.map { $0.contains(event.id) } ?? true
    let authorOK = filter.authors.map { $0.contains(event.pubkey) } ?? true
    let kindOK = filter.kinds.map { $0.contains(event.kind) } ?? true
    let sinceOK = filter.since.map { event.createdAt >= $0 } ?? true
    let untilOK = filter.until.map { event.createdAt <= $0 } ?? true
    let tagsOK = filter.tags.allSatisfy { letter, accepted in
      event.tagValues(letter).contains { accepted.contains($0) }
    }
    return idOK && authorOK && kindOK && sinceOK && untilOK && tagsOK
  }

  @Test func parsesEveryWrittenFilterBackEqual() throws {
    var generator = Generator(random: SplitMix64(seed: 0x4649_0001))
    for _ in 0..<Self.cases {
      let filter = generator.filter()
      let text = JSONWriter.string(filter.jsonValue)
      #expect(try Filter(jsonValue: JSONReader().read(text)) == filter, "\(text)")
    }
  }

  @Test func matchesLikeAPlainReadingOfNIP01() throws {
    var generator = Generator(random: SplitMix64(seed: 0x4649_0002))
    var matched = 0
    for _ in 0..<Self.cases {
      let filter = generator.filter()
      let event = try generator.event()
      let expected = Self.plainMatch(filter, event)
      #expect(filter.matches(event) == expected, "\(JSONWriter.string(filter.jsonValue)) \(event)")
      if expected { matched += 1 }
    }
    #expect(matched > Self.cases / 20 && matched < Self.cases - Self.cases / 20)
  }
}
