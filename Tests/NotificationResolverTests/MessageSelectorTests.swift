import NostrEvent
import NotificationResolver
import PushLease
import Testing

@Suite struct MessageSelectorTests {
  static let now: Int64 = 1_800_000_000
  static let window: Int64 = 3 * 24 * 3600
  static let channel = "3f2a9c1e-7b4d-4e8a-9c2b-1d5e6f7a8b9c"
  let account = SecretKey.generate()
  let sender = SecretKey.generate()

  func message(_ content: String, kind: Int = 9, at createdAt: Int64 = now - 10, by key: SecretKey? = nil)
    -> Event
  {
    let author = key ?? sender
    return try! UnsignedEvent(
      pubkey: author.publicKeyHex, createdAt: createdAt, kind: kind,
      tags: [["h", Self.channel], ["p", account.publicKeyHex]],
      content: content
    ).signed(with: author)
  }

  var selector: MessageSelector {
    MessageSelector(
      owner: account.publicKeyHex,
      subscriptions: [SubscriptionPlanner.mentionSubscription(for: account.publicKeyHex)],
      now: Self.now, window: Self.window)
  }

  @Test func keepsEligibleKindsNewestFirstWithTiesToTheLowerID() {
    let events = [
      message("a", at: Self.now - 30), message("b", kind: 40002, at: Self.now - 10),
      message("c", kind: 45001, at: Self.now - 10), message("d", kind: 45003, at: Self.now - 20),
    ]
    let chosen = selector.candidates(events)
    let tie = [events[1].id, events[2].id].sorted()
    #expect(chosen.map(\.id) == tie + [events[3].id, events[0].id])
  }

  @Test func dropsOwnFutureBlankUnfilteredAndDuplicateEvents() {
    let good = message("ok")
    let events = [
      message("mine", by: account), message("future", at: Self.now + 301), message(" \n\u{200B}\u{202E} "),
      message("note", kind: 1), good, good,
    ]
    let chosen = selector.candidates(events)
    #expect(chosen.map(\.id) == [good.id])
    let unrelated = MessageSelector(
      owner: account.publicKeyHex, subscriptions: [],
      compatibilityFilters: [Filter(kinds: [9], tags: ["p": [sender.publicKeyHex]])], now: Self.now,
      window: Self.window)
    #expect(unrelated.candidates([good]).isEmpty)
  }

  @Test func dropsMessagesOlderThanTheWindow() {
    let edge = message("edge", at: Self.now - Self.window)
    let old = message("old", at: Self.now - Self.window - 1)
    let chosen = selector.candidates([edge, old])
    #expect(chosen.map(\.id) == [edge.id])
  }

  @Test func acceptsFiveMinutesOfClockSkew() {
    let edge = message("edge", at: Self.now + 300)
    #expect(selector.isEligible(edge))
  }
}
