import NostrEvent
import PushLease

/// Meets one newly stored event with the leases of its origin and says which endpoints to wake,
/// with which class and until when: the five matching rules of `Docs/VendoringPushRelay.md`.
///
/// Rules 1 and 2 are `LeaseSubscription`'s (`PushLease`), the function the extension's resolver
/// calls too; this adds liveness, the class (rule 3) and the wake's expiry (rule 4). A value with
/// no state: the store's back-fill and its match of a stored event both use it, so an
/// (event, lease) pair is judged the same way whichever side arrived first.
package struct PushMatcher: Sendable {
  /// The lease kind, never matched.
  package static let leaseKind = EventKind.pushLease
  /// The push classes from lowest to highest; a wake takes the highest surviving one.
  package static let classOrder = ["silent", "default", "time_sensitive", "urgent"]

  /// The kinds that may wake (`push_kinds`), nil for any kind but 30350.
  package let pushKinds: Set<Int>?

  /// A matcher waking only `pushKinds` (nil: every kind but 30350).
  package init(pushKinds: Set<Int>? = nil) {
    self.pushKinds = pushKinds
  }

  /// Whether `event`'s kind may wake at all: in `pushKinds` and never 30350.
  package func isEligible(_ event: Event) -> Bool {
    event.kind != Self.leaseKind && (pushKinds?.contains(event.kind) ?? true)
  }

  /// What an event brings to every lease it meets: rule 1's reading and its channel's members,
  /// asked of the roster once per event.
  package struct Reading: Sendable {
    package var rule: LeaseSubscription.ChannelRule
    package var members: Set<String>?

    /// The channel a wake re-checks at send time, nil when rule 1 does not apply.
    package var channel: String? {
      if case .channel(let channel) = rule { return channel }
      return nil
    }
  }

  /// Reads `event` once for all the leases of `origin` it will meet; nil when it wakes nobody
  /// (not eligible, or a message without exactly one `h` tag).
  package func read(_ event: Event, roster: any RosterSource, origin: String) -> Reading? {
    guard isEligible(event) else { return nil }
    let rule = LeaseSubscription.channelRule(event)
    switch rule {
    case .refused: return nil
    case .none: return Reading(rule: rule, members: nil)
    case .channel(let channel):
      guard let members = roster.members(ofChannel: channel, origin: origin), members.contains(event.pubkey)
      else { return nil }
      return Reading(rule: rule, members: members)
    }
  }

  /// The wakes `event` (received at `receivedAt`) causes among `leases` at `now`, one per lease
  /// that survives rules 1–4; the outbox keeps one per endpoint (rule 5).
  package func candidates(
    for event: Event, leases: [StoredLease], roster: any RosterSource, origin: String, receivedAt: Int64,
    now: Int64
  ) -> [WakeCandidate] {
    guard let reading = read(event, roster: roster, origin: origin) else { return [] }
    var result: [WakeCandidate] = []
    result.reserveCapacity(leases.count)
    for lease in leases where lease.address.origin == origin {
      if let wake = candidate(for: event, lease: lease, reading: reading, receivedAt: receivedAt, now: now) {
        result.append(wake)
      }
    }
    return result
  }

  /// The wakes `event` causes among the leases `index` says could match, at `now`.
  package func candidates(
    for event: Event, index: inout LeaseIndex, reading: Reading, receivedAt: Int64, now: Int64
  ) -> [WakeCandidate] {
    var result: [WakeCandidate] = []
    result.reserveCapacity(128)
    index.forEachLease(for: event) { lease, target in
      if let wake = candidate(
        for: event, lease: lease, target: target, reading: reading, receivedAt: receivedAt, now: now)
      {
        result.append(wake)
      }
    }
    return result
  }

  /// The wake of `event` for one `lease`, or nil: the lease must be live, rule 1 must admit its
  /// owner, a subscription must survive rule 2, and the wake must not be expired (rule 4).
  package func candidate(
    for event: Event, lease: borrowing StoredLease, reading: Reading, receivedAt: Int64, now: Int64
  ) -> WakeCandidate? {
    guard let target = WakeTarget(lease) else { return nil }
    return candidate(
      for: event, lease: lease, target: target, reading: reading, receivedAt: receivedAt, now: now)
  }

  /// `candidate(for:lease:reading:receivedAt:now:)` with the lease's target already made (the live
  /// index keeps one per lease).
  private func candidate(
    for event: Event, lease: borrowing StoredLease, target: WakeTarget, reading: Reading, receivedAt: Int64,
    now: Int64
  ) -> WakeCandidate? {
    guard lease.isLive(now: now) else { return nil }
    let owner = target.address.pubkey
    if case .channel = reading.rule {
      // Rule 1: `read` admitted the author already; the owner must be a member too.
      guard reading.members?.contains(owner) == true else { return nil }
    }
    // The subscriptions are walked in place: copying each one retains every array it holds.
    // The class is the highest surviving one (an unknown class ranks below all, as the first such).
    let chosen = lease.subscriptions.withUnsafeBufferPointer { subscriptions -> Int? in
      var chosen: Int?
      var best = -1
      for position in subscriptions.indices where subscriptions[position].survives(event, owner: owner) {
        let rank = Self.rank(subscriptions[position].pushClass)
        if chosen == nil || rank > best {
          chosen = position
          best = rank
        }
      }
      return chosen
    }
    guard let chosen else { return nil }
    let expiresAt = min(lease.expiresAt, Self.wakeLimit(of: event, receivedAt: receivedAt))
    guard expiresAt > now else { return nil }
    return WakeCandidate(
      target: target, eventID: event.id, channel: reading.channel,
      pushClass: lease.subscriptions[chosen].pushClass,
      expiresAt: expiresAt, directMessage: event.kind == LeaseSubscription.giftWrapKind)
  }

  /// The position of `pushClass` in `classOrder`, -1 for an unknown one.
  static func rank(_ pushClass: String) -> Int {
    switch pushClass {
    case "silent": 0
    case "default": 1
    case "time_sensitive": 2
    case "urgent": 3
    default: -1
    }
  }

  /// Rule 4's bound from the event: `created_at` + 3600, or for a gift wrap (whose `created_at` is
  /// backdated on purpose) the time the relay received it + 3600.
  package static func wakeLimit(of event: Event, receivedAt: Int64) -> Int64 {
    let start = event.kind == LeaseSubscription.giftWrapKind ? receivedAt : event.createdAt
    let (limit, overflow) = start.addingReportingOverflow(WakeSchedule.maxWakeLifetimeSeconds)
    return overflow ? Int64.max : limit
  }
}
