import NostrEvent
import NostrPushCore

/// Composes a notification from a claimed message and the parts known about it (§4 of
/// `Docs/NotificationServiceExtension.md`): the same rules for the final plan and for the plain plan of the
/// expiry path, which simply knows no parts.
struct NotificationComposer: Sendable {
  let relay: RelayOrigin
  let community: String?
  let avatarDirectory: String?
  /// The words around the message's own.
  let strings: NotificationStrings

  /// The notification for `covered`'s shown message with `parts`; `mentionName` names a mentioned
  /// pubkey (from the cache) or nil, in which case the mention shows the compact npub.
  func compose(
    _ covered: CoveredMessages, parts: EnrichedParts,
    mentionName: @escaping @Sendable (String) -> String? = { _ in nil }
  ) -> ResolvedNotification {
    guard case .channel(let message) = covered.shown else {
      return composeDirect(covered, parts: parts, mentionName: mentionName)
    }
    if let reading = covered.socialReading {
      return composeSocial(covered, event: message, reading: reading, parts: parts, mentionName: mentionName)
    }
    let scope = StoreScope(account: covered.accountKey, relay: relay)
    let target = MessageTarget(eventID: message.id, tags: message.tags)
    let name = parts.profile?.displayName.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
    let source: EnrichmentSource
    if name == nil {
      source = .none
    } else if parts.profileRefreshed {
      source = .refreshed
    } else {
      source = parts.profile?.isFresh == true ? .cacheFresh : .cacheStale
    }
    let title = NotificationTitle.title(
      displayName: name, compactNpub: KeyDisplay.compact(message.pubkey), strings: strings)
    let subtitle = NotificationSubtitle.subtitle(
      channelName: parts.channel?.name, channelType: parts.channel?.type, community: community,
      strings: strings)
    // The group's name for a communication notification: the channel's own name, never the
    // community fallback of the subtitle.
    let groupName = parts.channel.flatMap { channel in
      channel.type == "dm" ? nil : channel.name.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
    }
    var recipientCount: Int? = nil
    if let membership = parts.membership, let channel = parts.channel, membership.signer == channel.signer {
      recipientCount = RecipientCount.count(
        memberCount: membership.memberCount, senderIsMember: membership.senderIsListed)
    }
    let mentions = MentionNames(limit: MentionNames.maxLookups, lookup: mentionName)
    var body = BodyPreview(renderMention: mentions.render, strings: strings).preview(of: message.content)
    if covered.moreCount > 0 { body += "\n" + strings.moreMessages(covered.moreCount) }
    var avatarFile: String? = nil
    if let avatar = parts.avatar, let avatarDirectory {
      avatarFile = AvatarFile.write(avatar, in: avatarDirectory)
    }
    var notification = ResolvedNotification(
      title: title, subtitle: subtitle, body: body,
      threadIdentifier: ThreadIdentifier.make(
        account: scope.account, relay: scope.relay, channelID: target.channelID),
      target: target, senderPubkey: message.pubkey, senderNpub: KeyDisplay.npub(message.pubkey) ?? "",
      kind: message.kind, recipientCount: recipientCount, avatarFile: avatarFile, enrichment: source,
      account: scope.account, moreCount: covered.moreCount, groupName: groupName)
    if parts.profile?.picture != nil, parts.avatar == nil { notification.avatarSkipped = .fetchFailed }
    return notification
  }
}
