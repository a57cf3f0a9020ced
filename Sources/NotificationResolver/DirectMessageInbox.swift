import GiftWrap
import NIP44
import NostrEvent
import PushLease

/// One account's direct messages for a wake (extension side): the gift-wrap
/// request of its own beside the message query, and the wraps it answered opened and kept by the
/// rules a channel message is kept by.
///
/// The request has its own cap, limit and read bounds, so a stranger's large wraps cannot crowd
/// out channel messages. A wrap that fails any check is dropped alone; the wake goes on with the
/// rest. Nothing here logs or stores the opened text.
struct DirectMessageInbox: Sendable {
  /// The response cap of the gift-wrap request.
  static let responseCap = 2 * 1024 * 1024
  /// The `limit` of the gift-wrap request.
  static let limit = 20
  /// How far a wrap's `created_at` may be set back (NIP-59: up to two days), added to the window.
  static let backdateAllowance: Int64 = 2 * 24 * 3600
  /// The read bounds of the answer: a wrap's content (or any string) over NIP-44's largest
  /// payload is dropped while it is read; the other bounds as for messages.
  static let readLimits: EventReadLimits = {
    var limits = EventReadLimits.notification
    limits.maxStringBytes = NIP44.maxPayloadCharacters
    limits.maxGeneralElementBytes = NIP44.maxPayloadCharacters + 4096
    return limits
  }()

  /// The account's key: it opens the wraps.
  let key: SecretKey
  /// The account's direct-message subscriptions (`{"kinds":[1059],"#p":[account]}`).
  let subscriptions: [LeaseSubscription]
  /// Senders never presented (rumor authors).
  let muted: Set<String>
  /// The wake's clock, unix seconds.
  let now: Int64
  /// The presentation window, seconds.
  let window: Int64

  /// The inbox of `account`, or nil when its subscriptions include no direct-message subscription
  /// (compatibility filters never do).
  init?(account: ResolverConfiguration, window: Int64, now: Int64) {
    let owner = account.account
    let subscriptions =
      account.compatibilityFilters == nil
      ? account.subscriptions.filter { Self.isDirectMessageSubscription($0, owner: owner) } : []
    guard !subscriptions.isEmpty else { return nil }
    self.key = account.secretKey
    self.subscriptions = subscriptions
    self.muted = account.mutedPubkeys
    self.now = now
    self.window = window
  }

  /// Whether `subscription` asks for gift wraps only, addressed to `owner`.
  static func isDirectMessageSubscription(_ subscription: LeaseSubscription, owner: String) -> Bool {
    subscription.filter.kinds == [LeaseSubscription.giftWrapKind] && subscription.filter.pTags == [owner]
  }

  /// The request: `{"kinds":[1059],"#p":[account],"since":now − window − 2 days,"limit":20}`.
  var filter: Filter {
    Filter(
      kinds: [LeaseSubscription.giftWrapKind], tags: ["p": [key.publicKeyHex]],
      since: now - window - Self.backdateAllowance, limit: Self.limit)
  }

  /// The direct messages among `wraps` (already verified) a wake may present, without repeats:
  /// each wrap matched by a direct-message subscription and opened with every check; the rumor not
  /// the account's own, not by a muted sender, within the presentation window by its own
  /// `created_at` (at most ``MessageSelector/maxFutureSkew`` ahead), a chat message not blank.
  func messages(in wraps: [Event]) -> [WakeMessage] {
    let owner = key.publicKeyHex
    var seen: Set<String> = []
    var kept: [WakeMessage] = []
    for wrap in wraps where subscriptions.contains(where: { $0.survives(wrap, owner: owner) }) {
      guard let message = try? DirectMessage(unwrapping: wrap, recipient: key) else { continue }
      guard message.author != owner, !muted.contains(message.author) else { continue }
      guard message.createdAt <= now + MessageSelector.maxFutureSkew, message.createdAt >= now - window
      else { continue }
      if message.kind == DirectMessage.chatKind, message.content.allSatisfy(\.isWhitespace) { continue }
      if seen.insert(message.id).inserted { kept.append(.direct(message, wrap: wrap)) }
    }
    return kept
  }
}
