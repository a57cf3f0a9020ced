/// Every event kind the package speaks, and what each means: the one owner of kind numbers.
///
/// No other file under `Sources/` writes a kind as a number (a test reads the sources to hold
/// that); everything else names a kind through this table, so what the relay wakes for and what
/// the extension presents are read from one place.
///
/// Decision: the kinds stay `Int` (the type of `Event.kind`) rather than a wrapper type, so that
/// a comparison reads `event.kind == EventKind.reaction` and filters take the constants as they
/// are; the table of names (``name(of:)``) is what gives each number its meaning.
public enum EventKind {
  /// Kind 0, a profile (user metadata, NIP-01): names and pictures for notifications.
  public static let profile = 0
  /// Kind 1, a short text note (NIP-01, NIP-10 replies): mentions and replies.
  public static let textNote = 1
  /// Kind 3, a follow list (NIP-02): replaceable.
  public static let followList = 3
  /// Kind 4, a NIP-04 encrypted direct message: presented without its content.
  public static let encryptedDirectMessage = 4
  /// Kind 6, a repost of a kind 1 note (NIP-18).
  public static let repost = 6
  /// Kind 7, a reaction (NIP-25).
  public static let reaction = 7
  /// Kind 9, a NIP-29 chat message.
  public static let chatMessage = 9
  /// Kind 13, a NIP-59 seal (inside a gift wrap).
  public static let seal = 13
  /// Kind 14, a NIP-17 chat message (a gift wrap's rumor).
  public static let directMessage = 14
  /// Kind 15, a NIP-17 file message (a gift wrap's rumor).
  public static let fileMessage = 15
  /// Kind 16, a generic repost (NIP-18).
  public static let genericRepost = 16
  /// Kind 1059, a NIP-59 gift wrap.
  public static let giftWrap = 1059
  /// Kind 1111, a NIP-22 comment.
  public static let comment = 1111
  /// Kind 9734, a NIP-57 zap request (carried in a receipt's `description`).
  public static let zapRequest = 9734
  /// Kind 9735, a NIP-57 zap receipt.
  public static let zapReceipt = 9735
  /// Kind 22242, a NIP-42 client authentication event.
  public static let clientAuthentication = 22242
  /// Kind 27235, a NIP-98 HTTP authorization event.
  public static let httpAuthorization = 27235
  /// Kind 30350, a NIP-PL push lease.
  public static let pushLease = 30350
  /// Kind 39000, NIP-29 group (channel) metadata, signed by the relay.
  public static let groupMetadata = 39000
  /// Kind 39001, a NIP-29 group's admins, signed by the relay.
  public static let groupAdmins = 39001
  /// Kind 39002, a NIP-29 group's members, signed by the relay.
  public static let groupMembers = 39002
  /// Kind 40002, a stream message.
  public static let streamMessage = 40002
  /// Kind 45001, a forum post.
  public static let forumPost = 45001
  /// Kind 45003, a forum reply.
  public static let forumReply = 45003

  /// The channel message kinds (chat, stream, forum post, forum reply): each carries exactly one
  /// `h` tag and is judged against that channel's roster.
  public static let channelMessages: [Int] = [chatMessage, streamMessage, forumPost, forumReply]
  /// The NIP-17 rumor kinds a gift wrap may carry: a chat message or a file message.
  public static let directMessageRumors: Set<Int> = [directMessage, fileMessage]
  /// The NIP-01 replaceable range (besides kinds 0 and 3): the newest event per author and kind.
  public static let replaceableRange = 10_000..<20_000
  /// The NIP-01 addressable range: the newest event per author, kind and `d` tag value.
  public static let addressableRange = 30_000..<40_000

  /// Whether `kind` is replaceable under NIP-01: kind 0, kind 3 or within ``replaceableRange``.
  public static func isReplaceable(_ kind: Int) -> Bool {
    kind == profile || kind == followList || replaceableRange.contains(kind)
  }

  /// Every kind of this table with its name, in ascending order.
  public static let all: [(kind: Int, name: String)] = [
    (profile, "profile"), (textNote, "text_note"), (followList, "follow_list"),
    (encryptedDirectMessage, "encrypted_direct_message"), (repost, "repost"), (reaction, "reaction"),
    (chatMessage, "chat_message"), (seal, "seal"), (directMessage, "direct_message"),
    (fileMessage, "file_message"), (genericRepost, "generic_repost"), (giftWrap, "gift_wrap"),
    (comment, "comment"), (zapRequest, "zap_request"), (zapReceipt, "zap_receipt"),
    (clientAuthentication, "client_authentication"), (httpAuthorization, "http_authorization"),
    (pushLease, "push_lease"), (groupMetadata, "group_metadata"), (groupAdmins, "group_admins"),
    (groupMembers, "group_members"),
    (streamMessage, "stream_message"), (forumPost, "forum_post"), (forumReply, "forum_reply"),
  ]

  /// The table's name of `kind` (`reaction`, `zap_receipt`, …), nil for a kind the package does
  /// not speak.
  public static func name(of kind: Int) -> String? {
    all.first { $0.kind == kind }?.name
  }
}
