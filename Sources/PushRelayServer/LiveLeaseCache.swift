import NostrPushCore
import PushDescriptor
import PushRelay

/// The live leases, read from the lease store at most once per ``maxAgeMilliseconds`` and at once
/// after a lease change: what every upstream's plan, ingest's store decision and `/query`'s
/// "holds a live lease" check read.
final class LiveLeaseCache: Sendable {
  /// How old a read may be before it is refreshed.
  static let maxAgeMilliseconds: Int64 = 500

  private struct Snapshot {
    var leases: [StoredLease] = []
    var pubkeys: Set<String> = []
    var interest = LeaseInterest()
    var readAt: Int64?
  }

  private let relay: PushRelay
  private let clock: UnixClock
  private let snapshot = Locked(Snapshot())

  init(relay: PushRelay, clock: UnixClock) {
    self.relay = relay
    self.clock = clock
  }

  /// Drops the cached read (a lease was accepted or revoked).
  func invalidate() {
    snapshot.withLock { $0.readAt = nil }
  }

  /// The live leases (blocking: call off the socket threads).
  func leases() -> [StoredLease] { current().leases }

  /// What the live leases might match.
  func interest() -> LeaseInterest { current().interest }

  /// Whether `pubkey` holds a live lease here.
  func holdsLease(_ pubkey: String) -> Bool { current().pubkeys.contains(pubkey) }

  private func current() -> Snapshot {
    let now = clock.nowMilliseconds()
    let cached = snapshot.current
    if let readAt = cached.readAt, now - readAt < Self.maxAgeMilliseconds { return cached }
    let leases =
      (try? relay.store.liveLeases(origin: relay.descriptor.origin, now: UnixClock.seconds(now)))
      ?? cached.leases
    let fresh = Snapshot(
      leases: leases, pubkeys: Set(leases.map(\.address.pubkey)), interest: LeaseInterest(leases: leases),
      readAt: now)
    snapshot.withLock { $0 = fresh }
    return fresh
  }
}
