import NostrEvent

/// A verified social event as one account's notification reads it: which kind of notification,
/// the note it is about, the thread root, who it names, and the parts each kind needs (the zap
/// receipt judged, the repost's embedded note, the reaction's text).
///
/// Every social row names the account in a `p` tag; an event that does not is not the
/// account's notification (nil). Decisions where the spec is silent:
/// - A kind 1 note is a reply when it has a `root`- or `reply`-marked `e` tag, or unmarked `e`
///   tags (NIP-10's deprecated positional form: the first the root, the last the parent); `e`
///   tags marked `mention` make no reply. A reply's target is its parent, its root the root.
/// - A kind 1111 comment's root is its `E` tag, its target its `e` tag (NIP-22); with neither it
///   reads as a mention.
/// - A mention has no target and no root: its thread is its own id.
/// - A reaction's target is its last `e` tag (NIP-25); a repost's its first `e` tag, else the
///   embedded note's id; a zap's the receipt's `e`.
struct SocialReading: Sendable {
  /// The kinds a social notification presents.
  static let kinds: Set<Int> = [
    EventKind.textNote, EventKind.comment, EventKind.repost, EventKind.genericRepost, EventKind.reaction,
    EventKind.zapReceipt, EventKind.encryptedDirectMessage,
  ]
  /// The kinds whose content is the note's text (a blank one is never presented).
  static let textKinds: Set<Int> = [EventKind.textNote, EventKind.comment]

  /// What the notification is to the account.
  let kind: SocialKind
  /// Whether the title says "replied" (a reply, or a comment with a parent).
  let isReply: Bool
  /// The note the notification is about (64 lowercase hex), nil for a mention.
  let targetID: String?
  /// The thread's root (64 lowercase hex), nil for a mention.
  let rootID: String?
  /// The pubkey the title names: the author, or a zap request's author (nil when the request
  /// does not verify).
  let named: String?
  /// The zap receipt, judged for the account, for a zap.
  let zap: ZapReceipt?
  /// A repost's embedded note, only when it parses, verifies and the account wrote it.
  let embeddedNote: Event?
  /// A reaction's text and custom emoji.
  let reaction: ReactionText?

  /// The reading of `event` (verified) for `account`, trusting `zapperPubkeys` for zaps; nil when
  /// its kind is not social or it does not name the account in `p`.
  init?(_ event: Event, account: String, zapperPubkeys: Set<String>) {
    guard Self.kinds.contains(event.kind),
      event.tags.contains(where: { $0.count >= 2 && $0[0] == "p" && $0[1] == account })
    else { return nil }
    var (target, root): (String?, String?) = (nil, nil)
    var (named, zap, embedded, reaction): (String?, ZapReceipt?, Event?, ReactionText?) = (
      event.pubkey, nil, nil, nil
    )
    let kind: SocialKind
    var isReply = false
    switch event.kind {
    case EventKind.textNote:
      (root, target) = Self.nip10(event.tags)
      isReply = target != nil
      kind = isReply ? .reply : .mention
    case EventKind.comment:
      root = Self.ids(event.tags, name: "E").first
      target = Self.ids(event.tags, name: "e").last
      isReply = root != nil || target != nil
      (root, target) = (root ?? target, target ?? root)
      kind = .comment
    case EventKind.repost, EventKind.genericRepost:
      if let note = try? Event(json: Array(event.content.utf8)), note.pubkey == account, note.verify().isValid
      {
        embedded = note
      }
      target = Self.ids(event.tags, name: "e").first ?? embedded?.id
      root = target
      kind = .repost
    case EventKind.reaction:
      target = Self.ids(event.tags, name: "e").last
      root = target
      reaction = ReactionText(content: event.content, tags: event.tags)
      kind = .reaction
    case EventKind.zapReceipt:
      let receipt = ZapReceipt(receipt: event, account: account, zapperPubkeys: zapperPubkeys)
      zap = receipt
      named = receipt.sender
      target = receipt.targetEventID.flatMap { NostrID(lenient: $0)?.hex }
      root = target
      kind = .zap
    default:
      kind = .dm
    }
    self.kind = kind
    self.isReply = isReply
    self.targetID = target
    self.rootID = root
    self.named = named
    self.zap = zap
    self.embeddedNote = embedded
    self.reaction = reaction
  }

  /// The relevance of the notification: 1 for a mention, reply, comment or direct message, 0.8
  /// for a validated zap, 0.5 for another zap, 0.3 for a reaction or a repost.
  var relevance: Double {
    switch kind {
    case .mention, .reply, .comment, .dm: 1
    case .zap: zap?.isValidated == true ? 0.8 : 0.5
    case .reaction, .repost: 0.3
    }
  }

  /// The NIP-10 root and parent of a kind 1 note (both nil for no reply).
  private static func nip10(_ tags: [[String]]) -> (root: String?, parent: String?) {
    var (root, reply): (String?, String?) = (nil, nil)
    var positional: [String] = []
    for tag in tags where tag.count >= 2 && tag[0] == "e" {
      guard let id = NostrID(lenient: tag[1])?.hex else { continue }
      let marker = tag.count >= 4 ? tag[3] : ""
      switch marker {
      case "root": root = id
      case "reply": reply = id
      case "": positional.append(id)
      default: continue
      }
    }
    if root != nil || reply != nil { return (root ?? reply, reply ?? root) }
    return (positional.first, positional.last)
  }

  /// The valid event ids of the tags named `name`, in order.
  private static func ids(_ tags: [[String]], name: String) -> [String] {
    tags.compactMap { $0.count >= 2 && $0[0] == name ? NostrID(lenient: $0[1])?.hex : nil }
  }
}
