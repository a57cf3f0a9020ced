import NostrPushCore
import PushDescriptor
import PushRelay

/// The live leases: what every upstream's plan, ingest's store decision and `/query`'s "holds a
/// live lease" check read.
///
/// Read again from the lease store at once after a lease change here (``invalidate()``), when the
/// first of the read leases expires, when the store's live-set version moved (asked at most every
/// ``versionCheckMilliseconds``: on PostgreSQL another service process accepting or revoking a
/// lease, or any 410, so every process's REQs follow a lease within the spec's 1 s), and
/// otherwise once ``maxAgeMilliseconds`` passed (for what a store without a version changes
/// without passing through this process's sessions, such as the delivery worker switching an
/// endpoint off after a 410 on SQLite: until then that lease is still read as live, which keeps a
/// REQ open and an event stored that the matcher will not wake for). A read of 100 000 leases
/// takes most of a second, so it is not repeated every half second as it was: on the ingest
/// thread that cost more than the ingest itself.
final class LiveLeaseCache: Sendable {
  /// How old a read may be before it is refreshed when nothing says it changed.
  static let maxAgeMilliseconds: Int64 = 30_000
  /// How often the store's live-set version is asked.
  static let versionCheckMilliseconds: Int64 = 500

  private struct Snapshot {
    var leases: [StoredLease] = []
    var pubkeys: Set<String> = []
    var interest = LeaseInterest()
    var readAt: Int64?
    /// When the first of `leases` expires, in Unix milliseconds.
    var firstExpiry = Int64.max
    /// Counts the reads: equal generations hold the same leases.
    var generation: UInt64 = 0
    /// The store's live-set version when the leases were read, and when it was last asked.
    var storeVersion: Int64?
    var versionCheckedAt: Int64?
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

  /// The live leases with the generation of their read (blocking: call off the socket threads):
  /// a caller that derives something from them (an upstream's plan) derives it again only when
  /// the generation moved.
  func versionedLeases() -> (generation: UInt64, leases: [StoredLease]) {
    let snapshot = current()
    return (snapshot.generation, snapshot.leases)
  }

  /// What the live leases might match.
  func interest() -> LeaseInterest { current().interest }

  /// Whether `pubkey` holds a live lease here.
  func holdsLease(_ pubkey: String) -> Bool { current().pubkeys.contains(pubkey) }

  private func current() -> Snapshot {
    let now = clock.nowMilliseconds()
    let cached = snapshot.current
    var storeVersion = cached.storeVersion
    if let readAt = cached.readAt, now - readAt < Self.maxAgeMilliseconds, now < cached.firstExpiry {
      guard let checkedAt = cached.versionCheckedAt, now - checkedAt >= Self.versionCheckMilliseconds
      else { return cached }
      storeVersion = try? relay.store.liveSetVersion(origin: relay.descriptor.origin)
      guard storeVersion != cached.storeVersion else {
        snapshot.withLock { $0.versionCheckedAt = now }
        return cached
      }
    } else {
      storeVersion = try? relay.store.liveSetVersion(origin: relay.descriptor.origin)
    }
    let leases =
      (try? relay.store.liveLeases(origin: relay.descriptor.origin, now: UnixClock.seconds(now)))
      ?? cached.leases
    let firstExpiry = leases.lazy.map(\.expiresAt).min().map { $0.multipliedReportingOverflow(by: 1000) }
    let fresh = Snapshot(
      leases: leases, pubkeys: Set(leases.map(\.address.pubkey)), interest: LeaseInterest(leases: leases),
      readAt: now, firstExpiry: firstExpiry.map { $0.overflow ? Int64.max : $0.partialValue } ?? Int64.max,
      generation: cached.generation &+ 1, storeVersion: storeVersion, versionCheckedAt: now)
    snapshot.withLock { $0 = fresh }
    return fresh
  }
}
