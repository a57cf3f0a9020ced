import NostrEvent
import Testing

/// NIP-01's "which event supersedes" rule, `Event.supersedes`, at its edges.
@Suite struct SupersedesTests {
  static let key = try! SecretKey(hex: "41ad4a9d72aaf80a611fddc7e48ea51d96c0a983654405989a4d8e958e612690")
  static let low = String(repeating: "0", count: 63) + "1"
  static let high = String(repeating: "0", count: 63) + "a"

  static func note(_ content: String, at createdAt: Int64) throws -> Event {
    try UnsignedEvent(pubkey: key.publicKeyHex, createdAt: createdAt, kind: 1, tags: [], content: content)
      .signed(with: key)
  }

  @Test func theGreaterCreatedAtWinsWhateverTheIDs() {
    #expect(Event.supersedes(createdAt: 11, id: Self.high, overCreatedAt: 10, id: Self.low))
    #expect(!Event.supersedes(createdAt: 10, id: Self.low, overCreatedAt: 11, id: Self.high))
    #expect(Event.supersedes(createdAt: 1, id: Self.high, overCreatedAt: 0, id: Self.low))
    let max: Int64 = (1 << 53) - 1
    #expect(Event.supersedes(createdAt: max, id: Self.high, overCreatedAt: max - 1, id: Self.low))
  }

  @Test func atEqualCreatedAtTheLowerIDWins() {
    #expect(Event.supersedes(createdAt: 10, id: Self.low, overCreatedAt: 10, id: Self.high))
    #expect(!Event.supersedes(createdAt: 10, id: Self.high, overCreatedAt: 10, id: Self.low))
    // Hex digits order before hex letters, as in the bytes ("9" < "a").
    let nine = String(repeating: "f", count: 63) + "9"
    let ay = String(repeating: "f", count: 63) + "a"
    #expect(Event.supersedes(createdAt: 10, id: nine, overCreatedAt: 10, id: ay))
  }

  @Test func anEventNeverSupersedesItself() throws {
    #expect(!Event.supersedes(createdAt: 10, id: Self.low, overCreatedAt: 10, id: Self.low))
    let event = try Self.note("same", at: 1_767_226_200)
    #expect(!event.supersedes(event))
  }

  @Test func theEventFormComparesCreatedAtThenID() throws {
    let older = try Self.note("older", at: 1_767_226_199)
    let newer = try Self.note("newer", at: 1_767_226_200)
    #expect(newer.supersedes(older))
    #expect(!older.supersedes(newer))
    let first = try Self.note("a", at: 1_767_226_200)
    let second = try Self.note("b", at: 1_767_226_200)
    let (lower, higher) = first.id < second.id ? (first, second) : (second, first)
    #expect(lower.supersedes(higher))
    #expect(!higher.supersedes(lower))
  }
}
