import NostrEvent
import NostrPushCore

extension NotificationComposer {
  /// The notification for a social event (the social lines of `Docs/CommandLine.md`'s `resolve`),
  /// every word from `strings`:
  /// - mention / reply / comment: `{name} mentioned you` or `{name} replied`, the note's preview;
  /// - repost: `{name} reposted your note`, the embedded note's preview when it is the account's
  ///   verified note, else `your note`;
  /// - reaction: `{name} reacted {emoji}`, the reacted-to note's preview when fetched, else
  ///   `your note`; a custom emoji's image is the attachment in place of the avatar;
  /// - zap: `{name} zapped you {sats} sats` only when validated (else `{name} zapped you`),
  ///   `{name}` the zap request's author or `Anonymous`; the body the comment, then the zapped
  ///   note's preview when fetched;
  /// - NIP-04 message: `{name}`, `Encrypted message`.
  ///
  /// Thread ids group by (account, relay, root or target note); a mention's is its own id; a
  /// NIP-04 message's is the conversation of the pair.
  func composeSocial(
    _ covered: CoveredMessages, event: Event, reading: SocialReading, parts: EnrichedParts,
    mentionName: @escaping @Sendable (String) -> String?
  ) -> ResolvedNotification {
    let account = covered.accountKey
    let preview = BodyPreview(
      renderMention: MentionNames(limit: MentionNames.maxLookups, lookup: mentionName).render,
      strings: strings)
    let namedProfile = reading.named == nil ? nil : parts.profile
    let displayName = namedProfile?.displayName.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
    let source: EnrichmentSource
    if displayName == nil {
      source = .none
    } else if parts.profileRefreshed {
      source = .refreshed
    } else {
      source = namedProfile?.isFresh == true ? .cacheFresh : .cacheStale
    }
    var name = NotificationTitle.title(
      displayName: displayName, compactNpub: reading.named.flatMap(KeyDisplay.compact), strings: strings)
    if reading.zap?.isAnonymous == true { name = strings.anonymousZapper }
    let note = parts.note.map { preview.preview(of: $0.content) }
    let title: String
    var body: String
    switch reading.kind {
    case .mention, .reply, .comment:
      title = reading.isReply ? strings.reply(name) : strings.mentioned(name)
      body = preview.preview(of: event.content)
    case .repost:
      title = strings.reposted(name)
      body = reading.embeddedNote.map { preview.preview(of: $0.content) } ?? strings.yourNote
    case .reaction:
      title = strings.reacted(name, reading.reaction?.text ?? "")
      body = note ?? strings.yourNote
    case .zap:
      if let amount = reading.zap?.amountMillisatoshis {
        title = strings.zapped(name, sats: amount / 1_000)
      } else {
        title = strings.zapped(name)
      }
      let comment = reading.zap.map { preview.preview(of: $0.comment) } ?? ""
      body = [comment, note ?? ""].filter { !$0.isEmpty }.joined(separator: "\n")
    case .dm:
      title = name
      body = strings.encryptedMessage
    }
    if covered.moreCount > 0 { body += "\n" + strings.moreMessages(covered.moreCount) }
    var avatarFile: String? = nil
    var avatarSkipped: NotificationPlan.AvatarSkip? = nil
    if let avatarDirectory {
      if let emoji = parts.emoji {
        avatarFile = AvatarFile.write(emoji, in: avatarDirectory)
      } else if reading.reaction?.imageURL == nil, let avatar = namedProfile == nil ? nil : parts.avatar {
        avatarFile = AvatarFile.write(avatar, in: avatarDirectory)
      }
    }
    if namedProfile?.picture != nil, parts.avatar == nil, reading.reaction?.imageURL == nil {
      avatarSkipped = .fetchFailed
    }
    let threadIdentifier: String
    if reading.kind == .dm {
      threadIdentifier = ThreadIdentifier.make(account: account, conversation: [event.pubkey, account])
    } else {
      threadIdentifier = ThreadIdentifier.make(
        account: account, relay: relay, note: reading.rootID ?? reading.targetID ?? event.id)
    }
    let sender = reading.named ?? event.pubkey
    var notification = ResolvedNotification(
      title: title, subtitle: nil, body: body, threadIdentifier: threadIdentifier,
      target: MessageTarget(
        eventID: event.id, channelID: nil, threadID: reading.isReply ? reading.targetID : nil),
      senderPubkey: sender, senderNpub: KeyDisplay.npub(sender) ?? "", kind: event.kind, recipientCount: nil,
      avatarFile: avatarFile, enrichment: source, account: account, moreCount: covered.moreCount)
    notification.social = SocialDetail(
      kind: reading.kind, targetID: reading.targetID, rootID: reading.rootID, relevance: reading.relevance,
      zapMillisatoshis: reading.zap?.amountMillisatoshis, senderName: name)
    notification.avatarSkipped = avatarSkipped
    return notification
  }
}
