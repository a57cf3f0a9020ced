/// Where the title's sender name came from.
public enum EnrichmentSource: String, Sendable, Hashable {
  /// A cached profile younger than the freshness threshold.
  case cacheFresh = "cache_fresh"
  /// A profile fetched from the relay during this wake.
  case refreshed
  /// A cached profile past the threshold, used because the refresh did not arrive in time.
  case cacheStale = "cache_stale"
  /// No name known: the compact npub or `Someone`.
  case none
}

/// A resolved notification: verified content, named and routed.
public struct ResolvedNotification: Sendable, Hashable {
  /// The sender's name, compact npub or `Someone`.
  public var title: String
  /// `#channel`, the community name, or nil.
  public var subtitle: String?
  /// The body preview.
  public var body: String
  /// The thread identifier grouping the channel's notifications.
  public var threadIdentifier: String
  /// Where a tap leads.
  public var target: MessageTarget
  /// The sender's public key (64 lowercase hex).
  public var senderPubkey: String
  /// The sender's npub.
  public var senderNpub: String
  /// The message's kind.
  public var kind: Int
  /// Other channel members, when a verified roster says so.
  public var recipientCount: Int?
  /// The avatar attachment's path.
  public var avatarFile: String?
  /// Where the title came from.
  public var enrichment: EnrichmentSource

  /// Creates a notification.
  package init(
    title: String, subtitle: String?, body: String, threadIdentifier: String, target: MessageTarget,
    senderPubkey: String, senderNpub: String, kind: Int, recipientCount: Int?, avatarFile: String?,
    enrichment: EnrichmentSource
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
  }
}

/// What a wake produced: a notification, or the fallback with its reason.
public enum NotificationOutcome: Sendable, Hashable {
  /// A verified, enriched message.
  case resolved(ResolvedNotification)
  /// `New message` / `Open the app to read it.`, for `reason`.
  case fallback(FallbackReason)

  /// The title shown.
  public var title: String {
    switch self {
    case .resolved(let notification): notification.title
    case .fallback: FallbackContent.title
    }
  }

  /// The body shown.
  public var body: String {
    switch self {
    case .resolved(let notification): notification.body
    case .fallback: FallbackContent.body
    }
  }
}
