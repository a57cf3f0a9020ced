import GiftWrap
import NostrEvent
import NostrPushCore
import PushDescriptor
import PushLease

/// Turns a wake's outcome into its ``NotificationPlan`` (`Docs/NotificationServiceExtension.md`): every
/// decision the extension's shell would otherwise make, made here where it is tested.
///
/// Decisions where the spec is silent:
/// - The push class is the highest among the owner's subscriptions whose filter, ignore filters
///   and `p_tags_max` the shown message survives (the roster rule admitted it already); an unknown
///   class counts for nothing, and compatibility filters (no classes) give `default`.
/// - A mention is a `p` tag naming the account.
/// - A fallback's user info holds `relay_origin` only.
struct PlanComposer: Sendable {
  /// One account of the wake: its pubkey and the subscriptions that give the push class (nil with
  /// compatibility filters).
  struct Account: Sendable {
    var pubkey: String
    var subscriptions: [LeaseSubscription]?
  }

  /// The message kinds of a direct message (NIP-17 chat message and file message).
  static let directMessageKinds = EventKind.directMessageRumors

  let relay: RelayOrigin
  let accounts: [Account]
  let avatarDirectory: String?
  /// Whether the extension holds the critical-alert entitlement.
  let canSendCriticalAlerts: Bool
  /// The words of a fallback.
  let strings: NotificationStrings

  /// The composer for a wake of `accounts` (the first one's settings apply to the wake).
  init(accounts: [ResolverConfiguration]) {
    let first = accounts[0]
    self.relay = first.relay
    self.accounts = accounts.map { account in
      Account(
        pubkey: account.account,
        subscriptions: account.compatibilityFilters == nil ? account.subscriptions : nil)
    }
    self.avatarDirectory = first.avatarDirectory
    self.canSendCriticalAlerts = first.canSendCriticalAlerts
    self.strings = first.strings
  }

  /// The plan presenting `outcome`; `shown` is the message it shows and `account` its account's
  /// index, when the wake claimed one. Each call writes fresh avatar copies.
  func plan(_ outcome: NotificationOutcome, shown: WakeMessage?, account: Int?) -> NotificationPlan {
    let origin = relay.description
    guard case .resolved(let message) = outcome else {
      return NotificationPlan(outcome: outcome, userInfo: ["relay_origin": origin], strings: strings)
    }
    var userInfo = [
      "account": message.account, "relay_origin": origin, "event_id": message.target.eventID,
    ]
    userInfo["channel_id"] = message.target.channelID.flatMap { $0.isEmpty ? nil : $0 }
    userInfo["thread_id"] = message.target.threadID.flatMap { $0.isEmpty ? nil : $0 }
    if let social = message.social {
      userInfo["social_kind"] = social.kind.rawValue
      userInfo["target_id"] = social.targetID
      userInfo["root_id"] = social.rootID
    }
    let level = interruptionLevel(shown: shown, account: account)
    var plan = NotificationPlan(
      outcome: outcome, targetContentIdentifier: origin + "#" + message.target.eventID, userInfo: userInfo,
      interruptionLevel: level, sound: Self.sound(for: level),
      relevanceScore: Self.relevance(of: message, shown: shown?.wokenEvent))
    plan.wrapID = shown?.directMessage?.wrapID
    plan.avatarSkipped = message.avatarSkipped
    var senderAvatar: String? = nil
    if let avatarDirectory, let stored = message.avatarFile {
      switch AvatarCopy.copy(from: stored, into: avatarDirectory) {
      case .copied(let attachment):
        plan.attachment = attachment
        if message.enrichment != .none,
          case .copied(let own) = AvatarCopy.copy(from: stored, into: avatarDirectory)
        {
          senderAvatar = own.file
        }
      case .skipped(let reason): plan.avatarSkipped = reason
      case nil: break
      }
    }
    // A communication notification is a person talking to the account: channel and direct
    // messages, mentions, replies and comments — never a reaction, a repost or a zap.
    let talks = message.social.map { [.mention, .reply, .comment, .dm].contains($0.kind) } ?? true
    if message.enrichment != .none, talks {
      plan.communication = NotificationPlan.Communication(
        senderName: message.social?.senderName ?? message.title, handle: message.senderNpub,
        avatarFile: senderAvatar,
        conversationIdentifier: message.threadIdentifier, groupName: message.groupName,
        recipientCount: message.recipientCount)
    }
    return plan
  }

  /// The level of the highest push class among the subscriptions the shown message survives (for
  /// a direct message, its gift wrap: the event the relay matched).
  func interruptionLevel(shown message: WakeMessage?, account: Int?) -> NotificationPlan.InterruptionLevel {
    guard let shown = message?.wokenEvent, let account, accounts.indices.contains(account) else {
      return .active
    }
    let owner = accounts[account]
    guard let subscriptions = owner.subscriptions else { return level(for: .default) }
    let classes = subscriptions.filter { $0.survives(shown, owner: owner.pubkey) }
      .compactMap { PushClass(rawValue: $0.pushClass) }
    guard let highest = classes.max(by: { Self.rank($0) < Self.rank($1) }) else {
      return level(for: .default)
    }
    return level(for: highest)
  }

  /// The interruption level of a push class: `silent` passive, `default` active,
  /// `time_sensitive` time-sensitive, `urgent` critical only with the critical-alert entitlement.
  func level(for pushClass: PushClass) -> NotificationPlan.InterruptionLevel {
    switch pushClass {
    case .silent: .passive
    case .default: .active
    case .timeSensitive: .timeSensitive
    case .urgent: canSendCriticalAlerts ? .critical : .timeSensitive
    }
  }

  /// The class's position from lowest to highest (`PushClass`'s declaration order).
  private static func rank(_ pushClass: PushClass) -> Int {
    PushClass.allCases.firstIndex(of: pushClass) ?? 0
  }

  /// The sound of a level: none for passive, the critical sound for critical, else the default.
  static func sound(for level: NotificationPlan.InterruptionLevel) -> NotificationPlan.Sound? {
    switch level {
    case .passive: nil
    case .active, .timeSensitive: .default
    case .critical: .defaultCritical
    }
  }

  /// 1.0 for a mention of the account or a direct message, 0.5 for a channel message; a social
  /// notification's own (``SocialDetail/relevance``).
  static func relevance(of message: ResolvedNotification, shown: Event?) -> Double {
    if let social = message.social { return social.relevance }
    if directMessageKinds.contains(message.kind) { return 1 }
    let mentions = shown?.tags.contains { $0.count >= 2 && $0[0] == "p" && $0[1] == message.account } ?? false
    return mentions ? 1 : 0.5
  }
}
