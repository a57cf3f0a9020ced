import NostrJSON
import NotificationResolver
import Testing

@Suite struct ResolveLineTests {
  @Test func writesAMessageLineWithTheKeysInContractOrder() throws {
    let notification = ResolvedNotification(
      title: "Alice", subtitle: nil, body: "hi \"there\"\nand 2 more", threadIdentifier: "00ff",
      target: MessageTarget(eventID: "aa", channelID: nil, threadID: "bb"), senderPubkey: "cc",
      senderNpub: "npub1x",
      kind: 9, recipientCount: 2, avatarFile: nil, enrichment: .cacheStale, account: "dd", moreCount: 2)
    let plan = NotificationPlan(
      outcome: .resolved(notification), targetContentIdentifier: "http://r#aa",
      userInfo: ["thread_id": "bb", "event_id": "aa", "relay_origin": "http://r", "account": "dd"],
      avatarSkipped: .unsupportedFormat, interruptionLevel: .timeSensitive, sound: .default,
      relevanceScore: 0.5,
      communication: NotificationPlan.Communication(
        senderName: "Alice", handle: "npub1x", avatarFile: nil, conversationIdentifier: "00ff",
        groupName: "general",
        recipientCount: 2))
    let text = ResolveLine.text(plan, elapsedMilliseconds: 12)
    #expect(
      text
        == #"{"outcome":"message","resolved":true,"suppress":false,"account":"dd","title":"Alice","subtitle":null,"#
        + #""body":"hi \"there\"\nand 2 more","more_count":2,"thread_identifier":"00ff","#
        + #""target_content_identifier":"http://r#aa","#
        + #""target":{"event_id":"aa","channel_id":null,"thread_id":"bb","conversation":null},"wrap_id":null,"#
        + #""user_info":{"account":"dd","relay_origin":"http://r","event_id":"aa","thread_id":"bb"},"#
        + #""sender":{"pubkey":"cc","npub":"npub1x"},"kind":9,"recipient_count":2,"avatar_file":null,"#
        + #""avatar_skipped":"unsupported_format","interruption_level":"time_sensitive","sound":"default","#
        + #""relevance_score":0.5,"communication":{"sender_name":"Alice","handle":"npub1x","avatar_file":null,"#
        + #""conversation_identifier":"00ff","group_name":"general","recipient_count":2},"#
        + #""enrichment":"cache_stale","elapsed_ms":12}"#)
  }

  @Test func writesWholeRelevanceScoresAsIntegers() throws {
    let notification = ResolvedNotification(
      title: "npub1x…", subtitle: "#general", body: "hi", threadIdentifier: "00ff",
      target: MessageTarget(eventID: "aa", channelID: nil, threadID: nil), senderPubkey: "cc",
      senderNpub: "npub1x", kind: 9, recipientCount: nil, avatarFile: nil, enrichment: .none, account: "dd")
    let plan = NotificationPlan(
      outcome: .resolved(notification), interruptionLevel: .passive, sound: nil, relevanceScore: 1)
    let text = ResolveLine.text(plan, elapsedMilliseconds: 1)
    #expect(
      text.contains(#""interruption_level":"passive","sound":null,"relevance_score":1,"communication":null,"#)
    )
  }

  @Test func writesAFallbackLine() {
    #expect(
      ResolveLine.text(NotificationPlan(outcome: .fallback(.relayUnreachable)), elapsedMilliseconds: 3)
        == #"{"outcome":"fallback","resolved":false,"suppress":false,"reason":"relay_unreachable","title":"New message","#
        + #""body":"Open the app to read it.","interruption_level":"active","elapsed_ms":3}"#
    )
  }

  @Test func writesANothingNewLineWithItsSuppressFlag() {
    #expect(
      ResolveLine.text(
        NotificationPlan(outcome: .nothingNew(.alreadyDelivered, suppress: true)), elapsedMilliseconds: 4)
        == #"{"outcome":"nothing_new","resolved":false,"suppress":true,"reason":"already_delivered","#
        + #""title":"New message","body":"Open the app to read it.","interruption_level":"active","elapsed_ms":4}"#
    )
  }
}
