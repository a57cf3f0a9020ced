import NostrEvent
import NostrHTTP
import PushLease

/// Everything one wake needs to know about the account and its relay.
///
/// The app writes it (relay URL, key, the lease's filters) where the extension can read it; the
/// resolver never asks the user for anything. What the initialiser checks (the budget and
/// timeouts, the counts, the keys) can only be set through it: those properties are read-only.
public struct ResolverConfiguration: Sendable {
  /// The default enrichment budget, measured from the moment the message is chosen.
  public static let defaultBudget: Duration = .milliseconds(1500)
  /// The default limit on the NIP-11 fetch and the message query together.
  public static let defaultQueryTimeout: Duration = .seconds(8)
  /// The longest budget or query timeout accepted.
  public static let maxTimeout: Duration = .seconds(60)
  /// The default presentation window (3 days): older messages are never presented.
  public static let defaultPresentationWindow: Duration = .seconds(3 * 24 * 3600)
  /// The shortest presentation window accepted (1 hour).
  public static let minPresentationWindow: Duration = .seconds(3600)
  /// The longest presentation window accepted (14 days); the cache keeps delivery claims one day
  /// longer (`EnrichmentCache.deliveryRetention`), so a message never comes back.
  public static let maxPresentationWindow: Duration = .seconds(14 * 24 * 3600)

  /// The relay's canonical origin.
  public var relay: RelayOrigin
  /// The account's secret key: it signs the NIP-98 (or NIP-42) authentication of every request,
  /// so the relay answers only what the account may read.
  public var secretKey: SecretKey
  /// The most subscriptions (or compatibility filters) and muted senders a configuration holds.
  public static let maxSubscriptions = 64
  /// The most muted senders a configuration holds.
  public static let maxMutedPubkeys = 10_000

  /// The lease's subscriptions: what the relay matches with, and what a wake keeps by the same
  /// rule (`LeaseSubscription.matches(_:owner:roster:)`: filter, ignore filters, `p_tags_max`,
  /// one `h` tag per message).
  public internal(set) var subscriptions: [LeaseSubscription]
  /// The NIP-01 filters each query sends: the subscriptions' filters, or — given to the
  /// initialiser instead, for compatibility — plain filters that replace the subscriptions (then
  /// no ignore filters and no `p_tags_max` apply; one `h` tag per message and the roster still do).
  public var filters: [Filter] {
    compatibilityFilters ?? subscriptions.map(\.filter.queryFilter)
  }
  /// Filters set in place of subscriptions; nil when the subscriptions rule.
  private(set) var compatibilityFilters: [Filter]?
  /// Senders whose messages are never presented (64 lowercase hex).
  public private(set) var mutedPubkeys: Set<String>
  /// The key that signs channel metadata and membership; nil to read NIP-11 `self`.
  public internal(set) var relayPubkey: String?
  /// What the extension alone applies to social notifications (muted words, hashtags and threads,
  /// `onlyFrom`) and the zapper keys that validate zaps; none by default.
  public var social: SocialSettings = .none
  /// The relay's community name, the subtitle when a channel has none.
  public var community: String?
  /// The enrichment budget: how long, once the message is chosen, profile, channel and avatar
  /// requests may add to it before the notification is composed with what arrived.
  public internal(set) var budget: Duration
  /// The limit on reaching the relay and receiving the message query's answer.
  public internal(set) var queryTimeout: Duration
  /// Where avatar attachments are written; nil for no avatar files.
  public var avatarDirectory: String?
  /// The HTTP stack for the NIP-11 fetch, `/query` and avatars (`URLSessionHTTPTransport.shared`
  /// by default; tests pass their own).
  public var transport: any HTTPTransport
  /// How queries reach the relay: `POST /query` (the default) or one WebSocket per wake.
  public var queryTransport: QueryTransport
  /// How old a message may be and still be presented: each query asks `since` = now − window,
  /// and an older answer is dropped (1 hour … 14 days, 3 days by default).
  public private(set) var presentationWindow: Duration
  /// Whether the extension holds the filtering entitlement
  /// (`com.apple.developer.usernotifications.filtering`; it cannot be detected at run time): then
  /// a ``NotificationOutcome/nothingNew(_:suppress:)`` outcome says `suppress`, and the notification is dropped instead of shown as the fallback.
  public var canFilterNotifications: Bool
  /// Whether the extension holds the critical-alert entitlement
  /// (`com.apple.developer.usernotifications.critical-alerts`, which Apple grants on request):
  /// then the `urgent` push class is presented `critical`, else `timeSensitive`.
  public var canSendCriticalAlerts: Bool

  /// The words the user reads around the message's own (English by default).
  public var strings: NotificationStrings

  /// The presentation window in whole seconds.
  var presentationWindowSeconds: Int64 { presentationWindow.components.seconds }

  /// The account's public key (64 lowercase hex): the cache's account key for this wake.
  public var account: String { secretKey.publicKeyHex }

  /// Creates a configuration. `subscriptions` are the lease's; without them, `filters` (plain
  /// NIP-01 filters, for compatibility); without either, the planner's mention subscription for
  /// the account.
  ///
  /// Throws when a budget or timeout is not positive or exceeds ``maxTimeout``, the presentation
  /// window is outside 1 hour … 14 days, there are more than ``maxSubscriptions`` subscriptions or
  /// filters or more than ``maxMutedPubkeys`` muted senders, or `relayPubkey` or a muted pubkey is
  /// not 64 hex.
  public init(
    relay: RelayOrigin, secretKey: SecretKey, subscriptions: [LeaseSubscription]? = nil,
    filters: [Filter]? = nil, mutedPubkeys: [String] = [], relayPubkey: String? = nil,
    community: String? = nil, budget: Duration = defaultBudget, queryTimeout: Duration = defaultQueryTimeout,
    avatarDirectory: String? = nil, transport: any HTTPTransport = URLSessionHTTPTransport.shared,
    queryTransport: QueryTransport = .httpQuery, presentationWindow: Duration = defaultPresentationWindow,
    canFilterNotifications: Bool = false, canSendCriticalAlerts: Bool = false,
    strings: NotificationStrings = .english
  ) throws(ResolverError) {
    guard budget > .zero, budget <= Self.maxTimeout else {
      throw ResolverError(code: .outOfRange, field: "budget", message: "must be between 1 ms and 60 s")
    }
    guard queryTimeout > .zero, queryTimeout <= Self.maxTimeout else {
      throw ResolverError(code: .outOfRange, field: "query_timeout", message: "must be between 1 ms and 60 s")
    }
    guard presentationWindow >= Self.minPresentationWindow, presentationWindow <= Self.maxPresentationWindow
    else {
      throw ResolverError(
        code: .outOfRange, field: "presentation_window", message: "must be between 1 hour and 14 days")
    }
    guard (subscriptions?.count ?? 0) <= Self.maxSubscriptions, (filters?.count ?? 0) <= Self.maxSubscriptions
    else {
      throw ResolverError(
        code: .invalidFilters, field: "subscriptions", message: "more than \(Self.maxSubscriptions)")
    }
    guard mutedPubkeys.count <= Self.maxMutedPubkeys else {
      throw ResolverError(
        code: .outOfRange, field: "muted_pubkeys", message: "more than \(Self.maxMutedPubkeys)")
    }
    var muted: Set<String> = []
    for pubkey in mutedPubkeys {
      guard let hex = NostrID(lenient: pubkey)?.hex else {
        throw ResolverError(code: .invalidKey, field: "muted_pubkeys", message: "not 64 hex characters")
      }
      muted.insert(hex)
    }
    var relayKey: String? = nil
    if let relayPubkey {
      guard let hex = NostrID(lenient: relayPubkey)?.hex else {
        throw ResolverError(code: .invalidKey, field: "relay_pubkey", message: "not 64 hex characters")
      }
      relayKey = hex
    }
    self.relay = relay
    self.secretKey = secretKey
    self.subscriptions =
      subscriptions
      ?? (filters == nil ? [SubscriptionPlanner.mentionSubscription(for: secretKey.publicKeyHex)] : [])
    self.compatibilityFilters = subscriptions == nil ? filters : nil
    self.mutedPubkeys = muted
    self.relayPubkey = relayKey
    self.community = community
    self.budget = budget
    self.queryTimeout = queryTimeout
    self.avatarDirectory = avatarDirectory
    self.transport = transport
    self.queryTransport = queryTransport
    self.presentationWindow = presentationWindow
    self.canFilterNotifications = canFilterNotifications
    self.canSendCriticalAlerts = canSendCriticalAlerts
    self.strings = strings
  }
}
