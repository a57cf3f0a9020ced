import NostrEvent
import PushLease

/// Picks the messages a wake may present from what the relay answered, by the relay's own rule:
/// kept when a lease subscription matches (`LeaseSubscription.matches(_:owner:roster:)`, the
/// function the relay's matcher calls: filter, no ignore filter, at most `p_tags_max` `p` tags,
/// exactly one `h` tag for a message kind, the author in the channel's roster when a complete
/// roster is known), of a message kind, not by the account or a muted sender, within the
/// presentation window (not older than now − window, at most ``maxFutureSkew`` ahead), not blank;
/// newest first, a tie to the lower id.
///
/// A roster counts as known only when the cache holds it complete: a member outside a roster
/// truncated at `Membership.maxStoredMembers`, or a channel with no cached roster, is not refused
/// (the relay already applied its roster when it woke the device).
package struct MessageSelector: Sendable {
  /// The kinds a notification presents: chat message, stream message, forum post, forum reply,
  /// and the social kinds (``SocialReading/kinds``).
  package static let eligibleKinds = LeaseSubscription.messageKinds.union(SocialReading.kinds)
  /// How far in the future a `created_at` may be (clock skew), in seconds.
  package static let maxFutureSkew: Int64 = 300

  /// Whether `pubkey` is in `channel`'s roster: true or false from a complete roster, nil when
  /// unknown.
  package typealias Membership = (_ channel: String, _ pubkey: String) -> Bool?

  /// The account the wake is for (the lease owner), 64 lowercase hex.
  package let owner: String
  /// The lease's subscriptions (ignored when `compatibilityFilters` is set).
  package let subscriptions: [LeaseSubscription]
  /// Plain filters in place of subscriptions, or nil.
  package let compatibilityFilters: [Filter]?
  /// Senders never presented.
  package let muted: Set<String>
  /// The wake's clock, unix seconds.
  package let now: Int64
  /// The presentation window, seconds.
  package let window: Int64
  /// What the extension alone applies to social events, and the zapper keys.
  package let social: SocialSettings

  /// A selector for `configuration`'s account at `now`, with the presentation window of `window`
  /// (the wake's settings; by default the account's own).
  package init(configuration: ResolverConfiguration, window: ResolverConfiguration? = nil, now: Int64) {
    self.init(
      owner: configuration.account, subscriptions: configuration.subscriptions,
      compatibilityFilters: configuration.compatibilityFilters, muted: configuration.mutedPubkeys, now: now,
      window: (window ?? configuration).presentationWindowSeconds, social: configuration.social)
  }

  /// A selector from its parts.
  package init(
    owner: String, subscriptions: [LeaseSubscription], compatibilityFilters: [Filter]? = nil,
    muted: Set<String> = [], now: Int64, window: Int64, social: SocialSettings = .none
  ) {
    self.social = social
    self.owner = owner.lowercased()
    self.subscriptions = subscriptions
    self.compatibilityFilters = compatibilityFilters
    self.muted = muted
    self.now = now
    self.window = window
  }

  /// The eligible events among `events` (which must already be verified), newest `created_at`
  /// first and a tie to the lower id, without duplicates.
  ///
  /// Call it on the relay's answer before claiming one for delivery.
  package func candidates(_ events: [Event], membership: @escaping Membership = { _, _ in nil }) -> [Event] {
    var seen: Set<String> = []
    var kept: [Event] = []
    for event in events where isEligible(event, membership: membership) {
      if seen.insert(event.id).inserted { kept.append(event) }
    }
    return kept.sorted { $0.supersedes($1) }
  }

  /// Whether one verified event may be presented.
  package func isEligible(_ event: Event, membership: @escaping Membership = { _, _ in nil }) -> Bool {
    guard Self.eligibleKinds.contains(event.kind) else { return false }
    let hasText = !SocialReading.kinds.contains(event.kind) || SocialReading.textKinds.contains(event.kind)
    if hasText,
      event.content.unicodeScalars.allSatisfy({ $0.properties.isWhitespace || Self.isInvisible($0) })
    {
      return false
    }
    if SocialReading.kinds.contains(event.kind) {
      guard let reading = SocialReading(event, account: owner, zapperPubkeys: social.zapperPubkeys),
        admits(event, reading)
      else { return false }
    }
    return woke(event, membership: membership)
  }

  /// The extension's own rules for a social event: the named sender (a zap's requester) neither
  /// the account nor muted and within `onlyFrom`, no muted thread or hashtag in its tags, no
  /// muted word in its text (a repost's: the embedded note's).
  private func admits(_ event: Event, _ reading: SocialReading) -> Bool {
    if let named = reading.named, named == owner || muted.contains(named) { return false }
    guard social.admits(sender: reading.named), !social.mutes(tags: event.tags) else { return false }
    if SocialReading.textKinds.contains(event.kind), social.mutes(text: event.content) { return false }
    if let note = reading.embeddedNote, social.mutes(text: note.content) { return false }
    return true
  }

  /// Whether `events` hold one that the relay would have woken the account for (a subscription
  /// matches it by the relay's rule, not the account's own nor a muted sender's, within the
  /// presentation window) but whose kind the resolver cannot present: the wake is then the
  /// `unsupported_kind` fallback, never "nothing new" (what wakes is what shows).
  package func hasUnpresentable(_ events: [Event], membership: @escaping Membership = { _, _ in nil }) -> Bool
  {
    events.contains { !Self.eligibleKinds.contains($0.kind) && woke($0, membership: membership) }
  }

  /// The rule the relay woke by, and the account's own and muted senders' events left out, within
  /// the presentation window, whatever the kind.
  private func woke(_ event: Event, membership: @escaping Membership) -> Bool {
    guard event.pubkey != owner, !muted.contains(event.pubkey) else { return false }
    guard event.createdAt <= now + Self.maxFutureSkew, event.createdAt >= now - window else { return false }
    // The roster as far as it is known: the owner and the author unless a complete roster
    // leaves them out.
    let roster = { (channel: String) -> Set<String>? in
      Set([owner, event.pubkey].filter { membership(channel, $0) != false })
    }
    guard let compatibilityFilters else {
      return subscriptions.contains { $0.matches(event, owner: owner, roster: roster) }
    }
    switch LeaseSubscription.channelRule(event) {
    case .refused: return false
    case .channel(let channel):
      guard LeaseSubscription.admits(event, owner: owner, members: roster(channel)) else { return false }
    case .none: break
    }
    return compatibilityFilters.contains { $0.matches(event) }
  }

  private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || scalar.value == 0x7F || ControlCharacterFilter.isBidiControl(scalar)
      || scalar.value == 0x200B || scalar.value == 0xFEFF
  }
}
