import NostrEvent
import NostrPushCore
import PushDescriptor
import PushLease

/// The `OK` answer to one kind 30350 event: accepted or not, and the NIP-01 message.
public struct IngestAnswer: Sendable, Hashable {
  /// The `OK` flag.
  public var accepted: Bool
  /// The `OK` message (`""`, `duplicate: …`, `invalid: …`, `auth-required: …`).
  public var message: String

  /// Creates an answer.
  public init(accepted: Bool, message: String) {
    self.accepted = accepted
    self.message = message
  }
}

/// The one entry point for a kind 30350 event: authentication, author, id and signature, clock,
/// the validator and the store's atomic accept, first failure answering (`push-relay.md` steps
/// 1–7).
///
/// A relay without a push key has no `PushIngest` and answers `invalid: push not supported`
/// itself (step 5 by construction). Both of the fixture's bridges (WebSocket `EVENT`,
/// `POST /events`) call it, and so can any relay. A storage failure throws, for the relay's
/// `error: internal server error`.
public struct PushIngest: Sendable {
  /// How far `created_at` may be from the relay's clock (900 s either way).
  public static let maxClockSkewSeconds: Int64 = 900

  /// The validator holding the push keys.
  public let validator: LeaseValidator
  /// The lease store.
  public let store: any LeaseStore
  /// Channel rosters, for back-fill.
  public let roster: any RosterSource
  /// The relay's descriptor: the tenant origin and `max_leases_per_pubkey`.
  public let descriptor: PushDescriptor
  /// The relay's clock.
  public let clock: UnixClock

  /// An ingest path over these parts.
  public init(
    validator: LeaseValidator, store: any LeaseStore, roster: any RosterSource, descriptor: PushDescriptor,
    clock: UnixClock = .system
  ) {
    self.validator = validator
    self.store = store
    self.roster = roster
    self.descriptor = descriptor
    self.clock = clock
  }

  /// Runs steps 1–7 for `event` from the authenticated `identity` (nil: none), with the relay's
  /// back-fill candidates `recent` (newest first, received in the last 120 s, at most 256).
  public func ingest(_ event: Event, identity: String?, recent: [Event]) throws(PushRelayError)
    -> IngestAnswer
  {
    guard let identity else {
      return IngestAnswer(accepted: false, message: "auth-required: not authenticated")
    }
    guard event.pubkey == identity else {
      return IngestAnswer(
        accepted: false, message: "invalid: event pubkey does not match authenticated identity")
    }
    switch event.verify() {
    case .valid: break
    case .idMismatch:
      return IngestAnswer(
        accepted: false, message: "invalid: invalid event id: computed \(event.computedID()), got \(event.id)"
      )
    case .badSignature:
      return IngestAnswer(accepted: false, message: "invalid: invalid schnorr signature")
    }
    let now = clock.now()
    let (distance, overflow) = now.subtractingReportingOverflow(event.createdAt)
    guard !overflow, distance.magnitude <= UInt64(Self.maxClockSkewSeconds) else {
      return IngestAnswer(accepted: false, message: "invalid: event timestamp too far from server time")
    }
    let lease: OpenedLease
    do {
      lease = try validator.open(event, tenantOrigin: descriptor.origin, now: now)
    } catch {
      return IngestAnswer(accepted: false, message: error.message)
    }
    let candidates = recent.prefix(PushMatcher.maxBackfillCandidates).filter {
      $0.kind != PushMatcher.leaseKind
    }
    let acceptance = try store.accept(
      lease, event: event, maxLeases: descriptor.limitation.maxLeasesPerPubkey, recent: Array(candidates),
      roster: roster, now: now)
    return IngestAnswer(accepted: acceptance.isAccepted, message: acceptance.message)
  }

}
