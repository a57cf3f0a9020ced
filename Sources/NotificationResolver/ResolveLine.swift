import NostrJSON

/// The one JSON line `nostr-push resolve` prints: the ``NotificationPlan`` in snake_case, with the
/// keys in the order of `Docs/CommandLine.md`.
package enum ResolveLine {
  /// The line's JSON object for `plan`, which took `elapsedMilliseconds`.
  package static func json(_ plan: NotificationPlan, elapsedMilliseconds: Int64) -> JSONValue {
    switch plan.outcome {
    case .fallback(let reason):
      return .object(
        JSONObject([
          "outcome": .string("fallback"), "resolved": .bool(false), "suppress": .bool(false),
          "reason": .string(reason.rawValue), "title": .string(plan.title), "body": .string(plan.body),
          "interruption_level": .string(plan.interruptionLevel.rawValue),
          "elapsed_ms": .integer(elapsedMilliseconds),
        ]))
    case .nothingNew(let reason, _):
      return .object(
        JSONObject([
          "outcome": .string("nothing_new"), "resolved": .bool(false), "suppress": .bool(plan.suppress),
          "reason": .string(reason.rawValue), "title": .string(plan.title), "body": .string(plan.body),
          "interruption_level": .string(plan.interruptionLevel.rawValue),
          "elapsed_ms": .integer(elapsedMilliseconds),
        ]))
    case .resolved(let message):
      let target = JSONObject([
        "event_id": .string(message.target.eventID),
        "channel_id": optional(message.target.channelID),
        "thread_id": optional(message.target.threadID),
        "conversation": message.target.conversation.map { .array($0.map(JSONValue.string)) } ?? .null,
      ])
      let sender = JSONObject([
        "pubkey": .string(message.senderPubkey), "npub": .string(message.senderNpub),
      ])
      let userInfo = JSONObject(
        plan.userInfo.keys.sorted { userInfoOrder($0) < userInfoOrder($1) }.map { key in
          JSONMember(key: key, value: .string(plan.userInfo[key] ?? ""))
        })
      return .object(
        JSONObject([
          "outcome": .string("message"), "resolved": .bool(true), "suppress": .bool(false),
          "account": .string(message.account), "title": .string(plan.title),
          "subtitle": optional(plan.subtitle), "body": .string(plan.body),
          "more_count": .integer(Int64(plan.moreCount)),
          "thread_identifier": .string(message.threadIdentifier),
          "target_content_identifier": optional(plan.targetContentIdentifier),
          "target": .object(target), "wrap_id": optional(plan.wrapID), "user_info": .object(userInfo),
          "sender": .object(sender), "kind": .integer(Int64(message.kind)),
          "recipient_count": integer(message.recipientCount),
          "avatar_file": optional(plan.attachment?.file),
          "avatar_skipped": optional(plan.avatarSkipped?.rawValue),
          "interruption_level": .string(plan.interruptionLevel.rawValue),
          "sound": optional(plan.sound?.rawValue), "relevance_score": number(plan.relevanceScore),
          "communication": plan.communication.map(communication) ?? .null,
          "enrichment": .string(message.enrichment.rawValue),
          "elapsed_ms": .integer(elapsedMilliseconds),
        ]))
    }
  }

  /// The compact JSON text of ``json(_:elapsedMilliseconds:)``.
  package static func text(_ plan: NotificationPlan, elapsedMilliseconds: Int64) -> String {
    JSONWriter.string(json(plan, elapsedMilliseconds: elapsedMilliseconds))
  }

  /// The user info keys in `Docs/CommandLine.md`'s order; any other key after them, by name.
  private static let userInfoKeys = ["account", "relay_origin", "event_id", "channel_id", "thread_id"]

  private static func userInfoOrder(_ key: String) -> (Int, String) {
    (userInfoKeys.firstIndex(of: key) ?? userInfoKeys.count, key)
  }

  private static func communication(_ communication: NotificationPlan.Communication) -> JSONValue {
    .object(
      JSONObject([
        "sender_name": .string(communication.senderName), "handle": .string(communication.handle),
        "avatar_file": optional(communication.avatarFile),
        "conversation_identifier": .string(communication.conversationIdentifier),
        "group_name": optional(communication.groupName),
        "recipient_count": integer(communication.recipientCount),
      ]))
  }

  /// A whole score as an integer (`1`, `0`), else a float (`0.5`), as `Docs/CommandLine.md` shows them.
  private static func number(_ value: Double) -> JSONValue {
    value == value.rounded() && abs(value) < 1e15 ? .integer(Int64(value)) : .float(value)
  }

  private static func integer(_ value: Int?) -> JSONValue {
    value.map { .integer(Int64($0)) } ?? .null
  }

  private static func optional(_ text: String?) -> JSONValue {
    text.map { .string($0) } ?? .null
  }
}
