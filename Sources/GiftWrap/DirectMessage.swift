import NostrEvent

/// A NIP-17 direct message opened from its gift wrap: the rumor, every check of
/// `GiftWrapError`'s list passed. Only `init(unwrapping:recipient:)` makes one.
///
/// The author is the seal's signer (the rumor claims the same key, or the wrap is refused), so
/// `author` is who wrote, proven by the seal's signature. `id` is the rumor's: two wraps of one
/// message (one per recipient, or a resend) give the same `id`, so a claim keyed by it presents
/// the message once. Holds plaintext: keep it out of caches and logs.
public struct DirectMessage: Sendable, Hashable {
  /// The kind of a chat message rumor.
  package static let chatKind = EventKind.directMessage
  /// The kind of a file message rumor.
  package static let fileKind = EventKind.fileMessage

  /// The rumor's id (64 lowercase hex): as the rumor carried it (checked), else computed.
  public let id: String
  /// The id of the gift wrap it came in: the event a relay stores and wakes for.
  public let wrapID: String
  /// The author's pubkey (64 lowercase hex): the seal's signer and the rumor's `pubkey`.
  public let author: String
  /// The rumor's `created_at`: when the author wrote it (the wrap's is backdated on purpose).
  public let createdAt: Int64
  /// 14 (chat: `content` is the text) or 15 (file: `content` is the file's URL).
  public let kind: Int
  /// The rumor's tags: `p` for each recipient, optional `subject`, `e` for a reply, file tags.
  public let tags: [[String]]
  /// The rumor's content.
  public let content: String

  /// Opens `wrap` with the recipient's key and checks every layer.
  ///
  /// Checks, in order, each failure its own code: kind 1059 (`not_a_gift_wrap`); content ≤
  /// 87 472 characters (`content_too_long`); the wrap's id and signature (`wrap_unverified`);
  /// NIP-44 with (recipient, wrap pubkey) (`wrap_unopened`); the seal parses
  /// (`seal_malformed`), is kind 13 (`seal_kind`), has no tags (`seal_tags`) and verifies
  /// (`seal_unverified`); NIP-44 with (recipient, seal pubkey) (`seal_unopened`); the rumor
  /// parses (`rumor_malformed`), is kind 14 or 15 (`rumor_kind`), has the seal's pubkey
  /// (`rumor_author_mismatch`) and, when it carries an `id`, that id is its hash
  /// (`rumor_id_mismatch`). Times are not checked: windows are the caller's.
  public init(unwrapping wrap: Event, recipient: SecretKey) throws(GiftWrapError) {
    let opened = try GiftWrapOpening.open(
      wrap, recipient: recipient, rumorKinds: [Self.chatKind, Self.fileKind])
    id = opened.rumorID
    wrapID = wrap.id
    author = opened.rumor.pubkey
    createdAt = opened.rumor.createdAt
    kind = opened.rumor.kind
    tags = opened.rumor.tags
    content = opened.rumor.content
  }

  /// The recipients the author named: the rumor's `p` tag values, in tag order, without
  /// repeats.
  public var recipients: [String] {
    var seen = Set<String>()
    return tags.compactMap { tag in
      guard tag.count >= 2, tag[0] == "p", seen.insert(tag[1]).inserted else { return nil }
      return tag[1]
    }
  }

  /// The conversation's subject: the first `subject` tag's value, nil when there is none.
  public var subject: String? {
    tags.first { $0.count >= 2 && $0[0] == "subject" }?[1]
  }
}
