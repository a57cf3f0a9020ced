/// What a social notification is to the account: the plan's `user_info["social_kind"]`.
public enum SocialKind: String, Sendable, Hashable, Codable, CaseIterable {
  /// A kind 1 note naming the account in `p`, with no reply marker.
  case mention
  /// A kind 1 note naming the account in `p` that replies in a thread (NIP-10 `e` root or reply).
  case reply
  /// A reaction (kind 7) to the account's note.
  case reaction
  /// A repost (kind 6 or 16) of the account's note.
  case repost
  /// A zap receipt (kind 9735) for the account.
  case zap
  /// A NIP-22 comment (kind 1111) naming the account in `p`.
  case comment
  /// A NIP-04 direct message (kind 4), shown without its content.
  case dm
}
