import NotificationResolver
import Testing

@Suite struct ContentRuleTests {
  @Test func titlePrefersTheDisplayNameThenTheCompactNpub() {
    #expect(NotificationTitle.title(displayName: "Alice", compactNpub: "npub14f8…9nsy") == "Alice")
    #expect(NotificationTitle.title(displayName: " ", compactNpub: "npub14f8…9nsy") == "npub14f8…9nsy")
    #expect(NotificationTitle.title(displayName: nil, compactNpub: nil) == "Someone")
  }

  @Test(
    arguments: [
      ("general", "stream", "Acme", "#general"),
      ("ideas", "forum", nil, "#ideas"),
      ("bob", "dm", "Acme", nil),
      (nil, "stream", "Acme", "Acme"),
      ("chat", "other", "Acme", "Acme"),
      ("chat", nil, nil, nil),
    ] as [(String?, String?, String?, String?)])
  func subtitleFollowsTheChannelType(name: String?, type: String?, community: String?, expected: String?) {
    #expect(
      NotificationSubtitle.subtitle(channelName: name, channelType: type, community: community) == expected)
  }

  @Test func recipientCountExcludesTheSenderAndNeedsOneOther() {
    #expect(RecipientCount.count(memberCount: 5, senderIsMember: true) == 4)
    #expect(RecipientCount.count(memberCount: 5, senderIsMember: false) == 5)
    #expect(RecipientCount.count(memberCount: 1, senderIsMember: true) == nil)
    #expect(RecipientCount.count(memberCount: 0, senderIsMember: false) == nil)
  }
}
