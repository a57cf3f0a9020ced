import NostrJSON

/// The one JSON line `nostr-push resolve` prints for an outcome, with the keys in the order of
/// `cli.md`.
///
/// The plan fields of `NotificationPlan` (`notification-service.md` §2: `target_content_identifier`,
/// `user_info`, `wrap_id`, `sound`, `relevance_score`, `communication`, a message's
/// `interruption_level`) are that type's to add (issue #28); this line carries the ones the
/// resolver decides today, in the spec's order.
package enum ResolveLine {
  /// The line's JSON object for `outcome`, which took `elapsedMilliseconds`.
  package static func json(_ outcome: NotificationOutcome, elapsedMilliseconds: Int64) -> JSONValue {
    switch outcome {
    case .fallback(let reason):
      return .object(
        JSONObject([
          "outcome": .string("fallback"), "resolved": .bool(false), "suppress": .bool(false),
          "reason": .string(reason.rawValue),
          "title": .string(FallbackContent.title),
          "body": .string(FallbackContent.body), "interruption_level": .string("active"),
          "elapsed_ms": .integer(elapsedMilliseconds),
        ]))
    case .nothingNew(let reason, let suppress):
      return .object(
        JSONObject([
          "outcome": .string("nothing_new"), "resolved": .bool(false), "suppress": .bool(suppress),
          "reason": .string(reason.rawValue),
          "title": .string(FallbackContent.title),
          "body": .string(FallbackContent.body), "interruption_level": .string("active"),
          "elapsed_ms": .integer(elapsedMilliseconds),
        ]))
    case .resolved(let notification):
      let target = JSONObject([
        "event_id": .string(notification.target.eventID),
        "channel_id": optional(notification.target.channelID),
        "thread_id": optional(notification.target.threadID),
      ])
      let sender = JSONObject([
        "pubkey": .string(notification.senderPubkey), "npub": .string(notification.senderNpub),
      ])
      return .object(
        JSONObject([
          "outcome": .string("message"), "resolved": .bool(true), "suppress": .bool(false),
          "account": .string(notification.account), "title": .string(notification.title),
          "subtitle": optional(notification.subtitle),
          "body": .string(notification.body), "more_count": .integer(Int64(notification.moreCount)),
          "thread_identifier": .string(notification.threadIdentifier),
          "target": .object(target), "sender": .object(sender), "kind": .integer(Int64(notification.kind)),
          "recipient_count": notification.recipientCount.map { .integer(Int64($0)) } ?? .null,
          "avatar_file": optional(notification.avatarFile),
          "enrichment": .string(notification.enrichment.rawValue),
          "elapsed_ms": .integer(elapsedMilliseconds),
        ]))
    }
  }

  /// The compact JSON text of ``json(_:elapsedMilliseconds:)``.
  package static func text(_ outcome: NotificationOutcome, elapsedMilliseconds: Int64) -> String {
    JSONWriter.string(json(outcome, elapsedMilliseconds: elapsedMilliseconds))
  }

  private static func optional(_ text: String?) -> JSONValue {
    text.map { .string($0) } ?? .null
  }
}
