import NostrEvent
import PushLease

/// Meets one newly stored event with the leases of its origin and says which endpoints to wake,
/// with which class and until when: the five matching rules of `push-relay.md`.
///
/// A value with no state; the store's back-fill and a relay's ingest path both use it, so an
/// (event, lease) pair is judged the same way whichever side arrived first.
public struct PushMatcher: Sendable {
  /// The lease kind, never matched.
  public static let leaseKind = 30350
  /// The gift-wrap kind, which wakes only a lease whose filter has `#p` and whose pubkey the
  /// event's `p` names.
  public static let giftWrapKind = 1059
  /// The most back-fill candidates one lease meets (the relay's newest, within
  /// `backfillWindowSeconds`).
  public static let maxBackfillCandidates = 256
  /// How far back back-fill candidates reach (120 s).
  public static let backfillWindowSeconds: Int64 = 120
  /// The push classes from lowest to highest; a wake takes the highest surviving one.
  public static let classOrder = ["silent", "default", "time_sensitive", "urgent"]

  /// The kinds that may wake (`push_kinds`), nil for any kind but 30350.
  public let pushKinds: Set<Int>?

  /// A matcher waking only `pushKinds` (nil: every kind but 30350).
  public init(pushKinds: Set<Int>? = nil) {
    self.pushKinds = pushKinds
  }

  /// The wakes `event` causes among `leases` (all of `origin`) at `now`, one per lease that
  /// survives rules 1–4; the outbox keeps one per endpoint (rule 5).
  public func candidates(
    for event: Event, leases: [StoredLease], roster: any RosterSource, origin: String, now: Int64
  ) -> [WakeCandidate] {
    guard isEligible(event) else { return [] }
    let channel = Self.channel(of: event)
    let members = channel.flatMap { roster.members(ofChannel: $0, origin: origin) }
    var result: [WakeCandidate] = []
    for lease in leases where lease.address.origin == origin {
      if let candidate = candidate(for: event, lease: lease, channel: channel, members: members, now: now) {
        result.append(candidate)
      }
    }
    return result
  }

  /// As `candidates(for:leases:…)`, meeting only the leases `index` says could match.
  public func candidates(
    for event: Event, index: LeaseIndex, roster: any RosterSource, origin: String, now: Int64
  ) -> [WakeCandidate] {
    guard isEligible(event) else { return [] }
    return candidates(for: event, leases: index.leases(for: event), roster: roster, origin: origin, now: now)
  }

  /// The wake of `event` for one `lease`, or nil: the lease must be live, a channel event's
  /// `members` (nil: none) must hold the lease's pubkey, a subscription must survive and the wake
  /// must not be expired.
  public func candidate(
    for event: Event, lease: StoredLease, channel: String?, members: Set<String>?, now: Int64
  ) -> WakeCandidate? {
    guard isEligible(event), lease.isLive(now: now), let endpoint = lease.endpoint,
      let endpointHash = lease.endpointHash, let transport = lease.transport
    else { return nil }
    if channel != nil {
      guard let members, members.contains(lease.address.pubkey) else { return nil }
    }
    var best: Int?
    var bestClass: String?
    for subscription in lease.compiled
    where Self.survives(subscription, event: event, owner: lease.address.pubkey) {
      let rank = Self.classOrder.firstIndex(of: subscription.pushClass) ?? -1
      if best.map({ rank > $0 }) ?? true {
        best = rank
        bestClass = subscription.pushClass
      }
    }
    guard let bestClass else { return nil }
    let (limit, overflow) = event.createdAt.addingReportingOverflow(WakeSchedule.maxWakeLifetimeSeconds)
    let expiresAt = min(lease.expiresAt, overflow ? Int64.max : limit)
    guard expiresAt > now else { return nil }
    return WakeCandidate(
      address: lease.address, generation: lease.generation, keyID: lease.keyID, endpoint: endpoint,
      endpointHash: endpointHash, transport: transport, eventID: event.id, channel: channel,
      pushClass: bestClass, expiresAt: expiresAt)
  }

  /// Whether `event`'s kind may wake at all: in `pushKinds` and never 30350.
  public func isEligible(_ event: Event) -> Bool {
    event.kind != Self.leaseKind && (pushKinds?.contains(event.kind) ?? true)
  }

  /// The channel of an event: the value of its first `h` tag, nil without one.
  public static func channel(of event: Event) -> String? {
    guard let tag = event.tags.first(where: { $0.first == "h" }) else { return nil }
    return tag.count >= 2 ? tag[1] : ""
  }

  /// Rule 2: the filter matches (NIP-01, `Filter.matches`), no ignore filter matches, the `p`
  /// tags are within `p_tags_max`, and a gift wrap names the owner in a `p` with a `#p` filter.
  static func survives(_ subscription: CompiledSubscription, event: Event, owner: String) -> Bool {
    guard subscription.filter.matches(event) else { return false }
    if subscription.ignore.contains(where: { $0.matches(event) }) { return false }
    if let limit = subscription.pTagsMax {
      let count = event.tags.reduce(0) { $0 + ($1.first == "p" ? 1 : 0) }
      guard count <= limit else { return false }
    }
    if event.kind == giftWrapKind {
      guard subscription.hasPTagFilter,
        event.tags.contains(where: { $0.count >= 2 && $0[0] == "p" && $0[1] == owner })
      else { return false }
    }
    return true
  }
}
