import NostrEvent
import PushDescriptor

/// One kind of social notification an app can ask the relay to wake it for, each addressed to the
/// account by a `#p` filter.
public enum SocialNotificationKind: String, Sendable, Hashable, CaseIterable, Codable {
  /// Mentions and replies: kind 1 notes that name the account in `p`.
  case mentions
  /// NIP-22 comments (kind 1111) that name the account in `p`.
  case comments
  /// Reactions (kind 7) to the account's notes.
  case reactions
  /// Reposts (kinds 6 and 16) of the account's notes.
  case reposts
  /// Zap receipts (kind 9735) for the account.
  case zaps
  /// NIP-17 direct messages: gift wraps (kind 1059) for the account.
  case directMessages = "direct_messages"

  /// The event kinds this notification wakes for.
  public var kinds: [Int] {
    switch self {
    case .mentions: [EventKind.textNote]
    case .comments: [EventKind.comment]
    case .reactions: [EventKind.reaction]
    case .reposts: [EventKind.repost, EventKind.genericRepost]
    case .zaps: [EventKind.zapReceipt]
    case .directMessages: [EventKind.giftWrap]
    }
  }
}

/// What a social app asks of the planner: which social notifications wake it, each with its push
/// class, and what must never wake it.
///
/// Decisions where the spec is silent: notifications asked with the same (granted) class share one
/// subscription whose filter lists their kinds, so a plan holds at most one subscription per class
/// plus the direct-message one; a class the descriptor's `class_support` does not list for
/// `transport` becomes `default`, as for chat plans; the hellthread gate is off unless
/// ``pTagsMax`` is set; the `ignore` slots go to the self ignore, then the muted senders, then the
/// muted threads, and what does not fit is reported (the extension still drops it).
public struct SocialPlanOptions: Sendable, Hashable {
  /// The social notifications to wake for, each with the class it asks for; absent ones are off.
  public var notifications: [SocialNotificationKind: PushClass]
  /// Senders whose events never wake the device (64 hex; checked when planning).
  public var mutedSenders: [String]
  /// Root event ids of threads the account muted (64 hex): events whose `e` tags name one never
  /// wake the device.
  public var mutedThreads: [String]
  /// The hellthread gate: an event with more `p` tags than this never wakes; nil for no gate.
  public var pTagsMax: Int?
  /// The transport whose `class_support` decides which classes are allowed (`apns`).
  public var transport: String

  /// Options asking for `notifications` (none by default), with nothing muted and no gate.
  public init(
    notifications: [SocialNotificationKind: PushClass] = [:], mutedSenders: [String] = [],
    mutedThreads: [String] = [], pTagsMax: Int? = nil, transport: String = "apns"
  ) {
    self.notifications = notifications
    self.mutedSenders = mutedSenders
    self.mutedThreads = mutedThreads
    self.pTagsMax = pTagsMax
    self.transport = transport
  }
}

/// A social plan's subscriptions and what did not fit in them.
public struct SocialPlan: Sendable, Hashable {
  /// The lease's subscriptions: one per granted class (its notifications' kinds together), then
  /// the direct-message subscription when asked.
  public let subscriptions: [LeaseSubscription]
  /// The class each asked-for notification got (`default` where `class_support` does not allow it).
  public let classes: [SocialNotificationKind: PushClass]
  /// The muted senders past the descriptor's `max_ignore` (lowercase hex): the relay may still wake
  /// for them; keep them in the extension's muted senders.
  public let unplacedMutedSenders: [String]
  /// The muted threads past `max_ignore` (lowercase hex): keep them in the extension's muted
  /// threads.
  public let unplacedMutedThreads: [String]
}
