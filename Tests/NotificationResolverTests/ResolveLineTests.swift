import NostrJSON
import NotificationResolver
import Testing

@Suite struct ResolveLineTests {
  @Test func writesAResolvedLineWithTheKeysInContractOrder() throws {
    let notification = ResolvedNotification(
      title: "Alice", subtitle: nil, body: "hi \"there\"", threadIdentifier: "00ff",
      target: MessageTarget(eventID: "aa", channelID: nil, threadID: "bb"), senderPubkey: "cc",
      senderNpub: "npub1x",
      kind: 9, recipientCount: 2, avatarFile: nil, enrichment: .cacheStale, account: "dd", moreCount: 2)
    let text = ResolveLine.text(.resolved(notification), elapsedMilliseconds: 12)
    #expect(
      text
        == #"{"outcome":"message","resolved":true,"suppress":false,"account":"dd","title":"Alice","subtitle":null,"#
        + #""body":"hi \"there\"","more_count":2,"thread_identifier":"00ff","#
        + #""target":{"event_id":"aa","channel_id":null,"thread_id":"bb"},"sender":{"pubkey":"cc","npub":"npub1x"},"#
        + #""kind":9,"recipient_count":2,"avatar_file":null,"enrichment":"cache_stale","elapsed_ms":12}"#)
  }

  @Test func writesAFallbackLine() {
    #expect(
      ResolveLine.text(.fallback(.relayUnreachable), elapsedMilliseconds: 3)
        == #"{"outcome":"fallback","resolved":false,"suppress":false,"reason":"relay_unreachable","title":"New message","#
        + #""body":"Open the app to read it.","interruption_level":"active","elapsed_ms":3}"#
    )
  }

  @Test func writesANothingNewLineWithItsSuppressFlag() {
    #expect(
      ResolveLine.text(.nothingNew(.alreadyDelivered, suppress: true), elapsedMilliseconds: 4)
        == #"{"outcome":"nothing_new","resolved":false,"suppress":true,"reason":"already_delivered","#
        + #""title":"New message","body":"Open the app to read it.","interruption_level":"active","elapsed_ms":4}"#
    )
  }
}
