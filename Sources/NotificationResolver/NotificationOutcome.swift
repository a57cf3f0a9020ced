/// Where the title's sender name came from: what an app logs to see how often the cache it fills
/// spares the extension a profile fetch.
public enum EnrichmentSource: String, Sendable, Hashable, Codable {
  /// A cached profile younger than the freshness threshold.
  case cacheFresh = "cache_fresh"
  /// A profile fetched from the relay during this wake.
  case refreshed
  /// A cached profile past the threshold, used because the refresh did not arrive in time.
  case cacheStale = "cache_stale"
  /// No name known: the compact npub or `Someone`.
  case none
}

/// A resolved notification: verified content, named and routed, ready to copy into the
/// notification's content (`UNMutableNotificationContent`) field by field.
public struct ResolvedNotification: Sendable, Hashable, Codable {
  /// The notification's title: the sender's display name, else the compact npub, else `Someone`
  /// (never raw hex).
  public var title: String
  /// The notification's subtitle: `#channel`, else the configured community name, else nil (no
  /// subtitle).
  public var subtitle: String?
  /// The notification's body: a plain-text preview of at most 180 characters, with code, links
  /// and mentions flattened; with ``moreCount`` n > 0 it ends with a line of its own, `and n more`.
  public var body: String
  /// The notification's thread identifier: groups the notifications of one channel (per account
  /// and relay) in Notification Center.
  public var threadIdentifier: String
  /// Where a tap leads: put its fields in the notification's `userInfo` for the app to open.
  public var target: MessageTarget
  /// The sender's public key (64 lowercase hex).
  public var senderPubkey: String
  /// The sender's npub (NIP-19), for an app that shows or links the sender.
  public var senderNpub: String
  /// The event's kind (9, 40002, 45001 or 45003 for a channel message, 14 or 15 for a NIP-17
  /// message, a social kind of ``SocialKind``), for an app that routes by kind.
  public var kind: Int
  /// How many other channel members the message reached, when a verified roster says so (for a
  /// communication notification's recipient count); nil when unknown.
  public var recipientCount: Int?
  /// The path of the sender's avatar as the resolver stores it under the configured avatar
  /// directory (one file per image, shared by every notification showing it); nil when there is
  /// none or no directory is configured. Attach the plan's own copy
  /// (``NotificationPlan/attachment``), never this file: iOS moves attachment files away.
  public var avatarFile: String?
  /// Where the title's name came from (cache, relay, or nowhere).
  public var enrichment: EnrichmentSource
  /// The account (pubkey hex) the message belongs to.
  public var account: String
  /// The eligible messages this notification covers besides the one shown (0 usually): a wake
  /// that finds several new messages shows the newest and claims them all.
  public var moreCount: Int
  /// The conversation's name for a communication notification: the channel's name (without `#`),
  /// or a direct message's subject; nil one-to-one or unknown.
  public var groupName: String?
  /// For a social notification (mention, reply, comment, reaction, repost, zap, NIP-04 message),
  /// what it is and the note it is about; nil for a channel or NIP-17 message.
  public var social: SocialDetail?
  /// Why the sender's avatar is missing although their profile names one (`fetch_failed`); the
  /// plan reports it as ``NotificationPlan/avatarSkipped``.
  package var avatarSkipped: NotificationPlan.AvatarSkip?

  /// Creates a notification.
  package init(
    title: String, subtitle: String?, body: String, threadIdentifier: String, target: MessageTarget,
    senderPubkey: String, senderNpub: String, kind: Int, recipientCount: Int?, avatarFile: String?,
    enrichment: EnrichmentSource, account: String, moreCount: Int = 0, groupName: String? = nil
  ) {
    self.title = title
    self.subtitle = subtitle
    self.body = body
    self.threadIdentifier = threadIdentifier
    self.target = target
    self.senderPubkey = senderPubkey
    self.senderNpub = senderNpub
    self.kind = kind
    self.recipientCount = recipientCount
    self.avatarFile = avatarFile
    self.enrichment = enrichment
    self.account = account
    self.moreCount = moreCount
    self.groupName = groupName
  }
}

/// What a wake produced: a notification, nothing new, or the fallback with its reason.
public enum NotificationOutcome: Sendable, Hashable, Codable {
  /// A verified, enriched message.
  case resolved(ResolvedNotification)
  /// `New message` / `Open the app to read it.`, for `reason`: the wake could not be resolved.
  case fallback(FallbackReason)
  /// No eligible message, or every candidate already presented or claimed by another wake: not a
  /// failure. `reason` is `noEligibleEvent` or `alreadyDelivered`; `suppress` is true only when
  /// the extension holds the filtering entitlement (``ResolverConfiguration/canFilterNotifications``)
  /// and may drop the notification; otherwise it shows the fallback text.
  case nothingNew(FallbackReason, suppress: Bool)
}
