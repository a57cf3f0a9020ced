import GiftWrap
import NostrEvent
import NostrPushCore

extension NotificationComposer {
  /// The notification for a direct message (`Docs/NotificationServiceExtension.md`): named from
  /// `parts` (the cache only, never a request keyed by the sender), subtitle = the `subject`, else
  /// `with <n> others` for a group, body = the text's preview (`[file]` for kind 15), routed to the
  /// rumor and its conversation; the words are `strings`'.
  ///
  /// Decisions where the spec is silent: `<n>` counts the participants other than the account
  /// (the sender included), so a three-person conversation reads `with 2 others`; the recipient
  /// count is every participant but the sender; a reply's parent is the marked `reply`/`root` `e`
  /// tag, else NIP-17's unmarked `e` tag.
  func composeDirect(
    _ covered: CoveredMessages, parts: EnrichedParts,
    mentionName: @escaping @Sendable (String) -> String?
  ) -> ResolvedNotification {
    let message = covered.shown
    let account = covered.accountKey
    let participants = Self.participants(author: message.pubkey, tags: message.tags)
    let others = participants.filter { $0 != account }
    let subject = message.directMessage?.subject.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
    let name = parts.profile?.displayName.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
    let source: EnrichmentSource =
      name == nil ? .none : (parts.profile?.isFresh == true ? .cacheFresh : .cacheStale)
    var body: String
    if message.kind == DirectMessage.fileKind {
      body = strings.file
    } else {
      let mentions = MentionNames(limit: MentionNames.maxLookups, lookup: mentionName)
      body = BodyPreview(renderMention: mentions.render, strings: strings).preview(of: message.content)
    }
    if covered.moreCount > 0 { body += "\n" + strings.moreMessages(covered.moreCount) }
    var avatarFile: String? = nil
    if let avatar = parts.avatar, let avatarDirectory {
      avatarFile = AvatarFile.write(avatar, in: avatarDirectory)
    }
    let target = MessageTarget(
      eventID: message.id, channelID: nil, threadID: Self.replyParent(in: message.tags),
      conversation: participants)
    var notification = ResolvedNotification(
      title: NotificationTitle.title(
        displayName: name, compactNpub: KeyDisplay.compact(message.pubkey), strings: strings),
      subtitle: subject ?? (others.count > 1 ? strings.groupConversation(others.count) : nil), body: body,
      threadIdentifier: ThreadIdentifier.make(account: account, conversation: participants), target: target,
      senderPubkey: message.pubkey, senderNpub: KeyDisplay.npub(message.pubkey) ?? "", kind: message.kind,
      recipientCount: participants.count - 1, avatarFile: avatarFile, enrichment: source, account: account,
      moreCount: covered.moreCount, groupName: subject)
    if parts.avatar == nil { notification.avatarSkipped = .notCached }
    return notification
  }

  /// The conversation's participants: the author and the rumor's `p` tags (valid keys only),
  /// sorted, without repeats.
  static func participants(author: String, tags: [[String]]) -> [String] {
    var set: Set<String> = [author]
    for tag in tags where tag.count >= 2 && tag[0] == "p" {
      if let key = NostrID(lenient: tag[1]) { set.insert(key.hex) }
    }
    return set.sorted()
  }

  /// The message a reply answers: the marked parent (``MessageTarget/threadID(in:)``), else the
  /// first valid unmarked `e` tag (NIP-17 names the parent that way).
  static func replyParent(in tags: [[String]]) -> String? {
    if let marked = MessageTarget.threadID(in: tags) { return marked }
    for tag in tags where tag.count >= 2 && tag[0] == "e" && (tag.count < 4 || tag[3].isEmpty) {
      if let id = NostrID(lenient: tag[1]) { return id.hex }
    }
    return nil
  }
}
