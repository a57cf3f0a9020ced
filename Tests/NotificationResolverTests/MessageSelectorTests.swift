import NostrEvent
import NotificationResolver
import Testing

@Suite struct MessageSelectorTests {
  static let now: Int64 = 1_800_000_000
  static let window: Int64 = 3 * 24 * 3600
  let account = SecretKey.generate()
  let sender = SecretKey.generate()

  func message(_ content: String, kind: Int = 9, at createdAt: Int64 = now - 10, by key: SecretKey? = nil)
    -> Event
  {
    let author = key ?? sender
    return try! UnsignedEvent(
      pubkey: author.publicKeyHex, createdAt: createdAt, kind: kind, tags: [["p", account.publicKeyHex]],
      content: content
    ).signed(with: author)
  }

  var filters: [Filter] { [ResolverConfiguration.defaultFilter(account: account.publicKeyHex)] }

  @Test func keepsEligibleKindsNewestFirstWithTiesToTheLowerID() {
    let events = [
      message("a", at: Self.now - 30), message("b", kind: 40002, at: Self.now - 10),
      message("c", kind: 45001, at: Self.now - 10), message("d", kind: 45003, at: Self.now - 20),
    ]
    let chosen = MessageSelector.candidates(
      events, filters: filters, account: account.publicKeyHex, now: Self.now, window: Self.window)
    let tie = [events[1].id, events[2].id].sorted()
    #expect(chosen.map(\.id) == tie + [events[3].id, events[0].id])
  }

  @Test func dropsOwnFutureBlankUnfilteredAndDuplicateEvents() {
    let good = message("ok")
    let events = [
      message("mine", by: account), message("future", at: Self.now + 301), message(" \n\u{200B}\u{202E} "),
      message("note", kind: 1), good, good,
    ]
    let chosen = MessageSelector.candidates(
      events, filters: filters, account: account.publicKeyHex, now: Self.now, window: Self.window)
    #expect(chosen.map(\.id) == [good.id])
    let unrelated = [Filter(kinds: [9], tags: ["p": [sender.publicKeyHex]])]
    #expect(
      MessageSelector.candidates(
        [good], filters: unrelated, account: account.publicKeyHex, now: Self.now, window: Self.window
      )
      .isEmpty)
  }

  @Test func dropsMessagesOlderThanTheWindow() {
    let edge = message("edge", at: Self.now - Self.window)
    let old = message("old", at: Self.now - Self.window - 1)
    let chosen = MessageSelector.candidates(
      [edge, old], filters: filters, account: account.publicKeyHex, now: Self.now, window: Self.window)
    #expect(chosen.map(\.id) == [edge.id])
  }

  @Test func acceptsFiveMinutesOfClockSkew() {
    let edge = message("edge", at: Self.now + 300)
    #expect(
      MessageSelector.isEligible(
        edge, filters: filters, account: account.publicKeyHex, now: Self.now, window: Self.window))
  }
}
