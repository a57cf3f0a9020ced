/// What a social notification adds to a resolved one: its kind, the note it is about, the
/// thread's root, how relevant it is, and a validated zap's amount.
public struct SocialDetail: Sendable, Hashable, Codable {
  /// What the notification is to the account (`user_info["social_kind"]`).
  public var kind: SocialKind
  /// The note the notification is about (`user_info["target_id"]`), nil for a mention.
  public var targetID: String?
  /// The thread's root (`user_info["root_id"]`), nil for a mention.
  public var rootID: String?
  /// The notification's relevance score (1 for mentions, replies, comments and direct messages,
  /// 0.8 a validated zap, 0.5 another zap, 0.3 a reaction or a repost).
  public var relevance: Double
  /// A validated zap's amount in millisatoshis; nil for anything else, and always nil for a zap
  /// that failed a check.
  public var zapMillisatoshis: UInt64?
  /// The name the title gives the sender (display name, compact npub, `Someone` or `Anonymous`):
  /// a communication notification's sender name.
  public var senderName: String

  /// Creates the detail from its parts.
  package init(
    kind: SocialKind, targetID: String?, rootID: String?, relevance: Double, zapMillisatoshis: UInt64? = nil,
    senderName: String
  ) {
    self.senderName = senderName
    self.kind = kind
    self.targetID = targetID
    self.rootID = rootID
    self.relevance = relevance
    self.zapMillisatoshis = zapMillisatoshis
  }
}
