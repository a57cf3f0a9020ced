import Foundation
import NostrEvent
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import Testing

/// `Docs/NotificationServiceExtension.md` over a WebSocket: with element bounds, an `EVENT` message is
/// read in place and an event over a bound, or past the answer's tag total, is dropped before
/// it is built; without them, every verified event is kept as before.
@Suite(.timeLimit(.minutes(1))) struct EventLimitsTests {
  static func event(_ scenario: WebSocketScenario, tags: Int, content: String) throws -> Event {
    try UnsignedEvent(
      pubkey: scenario.author.publicKeyHex, createdAt: WebSocketScenario.now - 10, kind: 9,
      tags: Array(repeating: ["t"], count: tags), content: content
    ).signed(with: scenario.author)
  }

  @Test func dropsAnEventOverTheTagBoundAndKeepsTheRest() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let padded = try Self.event(scenario, tags: 2001, content: "padded")
      let atBound = try Self.event(scenario, tags: 2000, content: "at the bound")
      try scenario.server.add([padded, atBound])
      let connection = try await scenario.connect()
      let bounded = try await connection.query(
        [Filter(kinds: [9])], limits: QueryLimits(maxBytes: 1 << 20, eventLimits: .notification),
        deadline: .now + .seconds(10))
      #expect(Set(bounded.map(\.content)) == ["at the bound", "message 0", "message 1", "message 2"])
      #expect(await connection.counters.dropped == 1)
      let unbounded = try await connection.query([Filter(kinds: [9])], deadline: .now + .seconds(10))
      #expect(unbounded.contains { $0.id == padded.id })
      await connection.close()
    }
  }

  @Test func dropsEventsPastTheAnswersTagTotal() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let events = try (0..<3).map { try Self.event(scenario, tags: 4, content: "four tags \($0)") }
      try scenario.server.add(events)
      let connection = try await scenario.connect()
      var limits = EventReadLimits.notification
      limits.maxTotalTags = 10
      let kept = try await connection.query(
        [Filter(kinds: [9])], limits: QueryLimits(maxBytes: 1 << 20, eventLimits: limits),
        deadline: .now + .seconds(10))
      // The three untagged messages and two of the tagged ones (8 tags); the third would make 12.
      #expect(kept.count == 5)
      #expect(kept.reduce(0) { $0 + $1.tags.count } == 8)
      await connection.close()
    }
  }

  @Test func readsAnEventMessageInPlaceWhateverItsSpacing() throws {
    let key = SecretKey.generate()
    let event = try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: 1_700_000_000, kind: 1, tags: [["p", key.publicKeyHex]],
      content: "hi"
    ).signed(with: key)
    let json = String(decoding: event.jsonBytes(), as: UTF8.self)
    func read(_ text: String, bounded: Bool = true) -> EventMessageReading? {
      Array(text.utf8).withUnsafeBytes { buffer in
        EventFastReader.readEventMessage(buffer) { subscription in
          bounded && subscription == "s1" ? (.notification, 0) : nil
        }
      }
    }
    #expect(read("[\"EVENT\",\"s1\",\(json)]")?.event == event)
    #expect(read(" [ \"EVENT\" , \"s1\" ,\n\(json) ] ")?.event == event)
    #expect(read("[\"EVENT\",\"s1\",\(json)]", bounded: false) == nil)
    #expect(read("[\"EVENT\",\"s2\",\(json)]") == nil)
    #expect(read("[\"EOSE\",\"s1\"]") == nil)
    let malformed = read("[\"EVENT\",\"s1\",\(json),\"extra\"]")
    #expect(malformed?.subscription == "s1")
    #expect(malformed?.event == nil)
  }
}
