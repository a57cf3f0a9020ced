import NostrEvent
import PushDescriptor
import PushLease

/// The app half: discover the relay's push descriptor, then plan the social lease.
public struct SocialAppSide: Sendable {
  /// The account's key.
  public let account: SecretKey

  /// The app side of `account`.
  public init(account: SecretKey) {
    self.account = account
  }

  /// 1. The relay's NIP-11 document, its push descriptor validated strictly.
  public func discover(relay: String) async throws -> PushDescriptor {
    try await PushDiscovery().discover(relay: relay).push
  }

  /// 2. The lease's subscriptions: mentions and comments time-sensitive, reactions, reposts and
  /// zaps by default, the muted senders and threads as `ignore` filters, and the hellthread gate.
  /// Throws `kind_not_offered` when the relay's `push_kinds` lacks one of them.
  public func plan(_ descriptor: PushDescriptor, mutedSenders: [String], mutedThreads: [String]) throws
    -> SocialPlan
  {
    try SubscriptionPlanner(descriptor: descriptor).socialPlan(
      for: account.publicKeyHex,
      options: SocialPlanOptions(
        notifications: [
          .mentions: .timeSensitive, .comments: .timeSensitive, .reactions: .default, .reposts: .default,
          .zaps: .default,
        ], mutedSenders: mutedSenders, mutedThreads: mutedThreads, pTagsMax: 20))
  }
}
