/// Where a wake stands in the outbox.
public enum WakeState: String, Sendable, Hashable, CaseIterable {
  /// Waiting for its next attempt (`next_attempt_ms`).
  case pending
  /// Claimed by a worker until its fence.
  case sending
  /// The gateway accepted it (or may have: a 404 after an earlier attempt).
  case delivered
  /// Given up: a final answer, expiry, eight attempts, or a lease that no longer asks for it.
  case failed
}

/// The lease side of a wake — address, generation, key id, endpoint, its hash and transport —
/// made once per live lease and shared by every wake the lease gets: a match retains one reference
/// instead of copying six fields (the matcher's cost per matched pair, `Docs/Performance.md`).
package final class WakeTarget: Sendable, Hashable {
  package let address: LeaseAddress
  package let generation: Int64
  package let keyID: String
  package let endpoint: String
  package let endpointHash: String
  package let transport: String

  package init(
    address: LeaseAddress, generation: Int64, keyID: String, endpoint: String, endpointHash: String,
    transport: String
  ) {
    self.address = address
    self.generation = generation
    self.keyID = keyID
    self.endpoint = endpoint
    self.endpointHash = endpointHash
    self.transport = transport
  }

  /// The target of `lease`, nil for a row without an endpoint (a tombstone).
  package convenience init?(_ lease: borrowing StoredLease) {
    guard let endpoint = lease.endpoint, let endpointHash = lease.endpointHash,
      let transport = lease.transport
    else { return nil }
    self.init(
      address: lease.address, generation: lease.generation, keyID: lease.keyID, endpoint: endpoint,
      endpointHash: endpointHash, transport: transport)
  }

  package static func == (left: WakeTarget, right: WakeTarget) -> Bool {
    left === right
      || (left.address == right.address && left.generation == right.generation && left.keyID == right.keyID
        && left.endpoint == right.endpoint && left.endpointHash == right.endpointHash
        && left.transport == right.transport)
  }

  package func hash(into hasher: inout Hasher) {
    hasher.combine(address)
    hasher.combine(generation)
    hasher.combine(keyID)
    hasher.combine(endpoint)
    hasher.combine(endpointHash)
    hasher.combine(transport)
  }
}

/// What the matcher asks the outbox to send: one wake of one endpoint for one event.
public struct WakeCandidate: Sendable, Hashable {
  /// The lease side, shared by the lease's wakes.
  package let target: WakeTarget
  /// The lease the wake is for.
  public var address: LeaseAddress { target.address }
  /// The lease's generation when matched; the send-time re-check and a 410 are bound to it.
  public var generation: Int64 { target.generation }
  /// The push key id that signs the gateway request (the lease's `exec`).
  public var keyID: String { target.keyID }
  /// The endpoint grant.
  public var endpoint: String { target.endpoint }
  /// SHA-256 of the endpoint, 64 lowercase hex.
  public var endpointHash: String { target.endpointHash }
  /// The gateway transport (`apns`, `fcm`).
  public var transport: String { target.transport }
  /// The event that caused the wake.
  public var eventID: String
  /// The event's channel (its first `h`), nil for none: the worker re-checks membership.
  public var channel: String?
  /// The push class, the highest of the surviving subscriptions.
  public var pushClass: String
  /// The wake's expiry: min(lease expiry, event `created_at` + 3600).
  public var expiresAt: Int64
  /// Whether the event is a gift wrap (kind 1059): such wakes are bounded per lease and coalesced
  /// (`DirectMessageWakeBound`).
  package var directMessage: Bool

  /// Creates a candidate.
  public init(
    address: LeaseAddress, generation: Int64, keyID: String, endpoint: String, endpointHash: String,
    transport: String, eventID: String, channel: String?, pushClass: String, expiresAt: Int64
  ) {
    self.init(
      target: WakeTarget(
        address: address, generation: generation, keyID: keyID, endpoint: endpoint,
        endpointHash: endpointHash,
        transport: transport),
      eventID: eventID, channel: channel, pushClass: pushClass, expiresAt: expiresAt)
  }

  /// A candidate for `target`'s lease; `directMessage` for a gift wrap's.
  package init(
    target: WakeTarget, eventID: String, channel: String?, pushClass: String, expiresAt: Int64,
    directMessage: Bool = false
  ) {
    self.target = target
    self.eventID = eventID
    self.channel = channel
    self.pushClass = pushClass
    self.expiresAt = expiresAt
    self.directMessage = directMessage
  }
}

/// One outbox row: a candidate with its `request_id`, state, attempts and times.
public struct Wake: Sendable, Hashable {
  /// The `request_id` (lowercase UUID v4), the same on every attempt.
  public var requestID: String
  /// What was enqueued.
  public var candidate: WakeCandidate
  /// The state.
  public var state: WakeState
  /// Attempts claimed so far (a claim counts one).
  public var attempts: Int
  /// When a pending wake is next due (Unix ms).
  public var nextAttemptMilliseconds: Int64
  /// Until when a sending wake's claim holds (Unix ms).
  public var fenceMilliseconds: Int64
  /// The last HTTP status the gateway answered, nil if none.
  public var lastStatus: Int?

  /// A row as an outbox read it (another database's outbox builds these from its own rows).
  package init(
    requestID: String, candidate: WakeCandidate, state: WakeState, attempts: Int,
    nextAttemptMilliseconds: Int64,
    fenceMilliseconds: Int64, lastStatus: Int?
  ) {
    self.requestID = requestID
    self.candidate = candidate
    self.state = state
    self.attempts = attempts
    self.nextAttemptMilliseconds = nextAttemptMilliseconds
    self.fenceMilliseconds = fenceMilliseconds
    self.lastStatus = lastStatus
  }
}

extension Wake {
  /// A `push_wake` row in the wake columns' order, from either backend, in `state` (each outbox
  /// reads column 13 and says what a state that is not one means).
  package init(row: some LeaseSQLRow, state: WakeState) {
    var candidate = WakeCandidate(
      address: LeaseAddress(origin: row.string(1) ?? "", pubkey: row.string(2) ?? "", d: row.string(3) ?? ""),
      generation: row.int64(4), keyID: row.string(5) ?? "", endpoint: row.string(6) ?? "",
      endpointHash: row.string(7) ?? "", transport: row.string(8) ?? "", eventID: row.string(9) ?? "",
      channel: row.string(10), pushClass: row.string(11) ?? "", expiresAt: row.int64(12))
    candidate.directMessage = row.string(18) != nil
    self.init(
      requestID: row.string(0) ?? "", candidate: candidate, state: state, attempts: Int(row.int64(14)),
      nextAttemptMilliseconds: row.int64(15), fenceMilliseconds: row.int64(16),
      lastStatus: row.string(17).flatMap { Int($0) })
  }
}

extension Wake {
  /// When the row is next due: a pending row at its next attempt, a claimed one at its fence.
  /// Every outbox claims in this order.
  package var dueAtMilliseconds: Int64 {
    state == .pending ? nextAttemptMilliseconds : fenceMilliseconds
  }
}

/// How one attempt ended, as the worker writes it.
public enum WakeOutcome: Sendable, Hashable {
  /// The gateway accepted it.
  case delivered
  /// A final answer, or nothing to send.
  case failed
  /// Try again after `baseSeconds` × 2^min(attempts − 1, 6) s, or fail at the last attempt.
  case retry(baseSeconds: Int64)
}

/// One claimed wake's outcome and the gateway's HTTP status (nil when nothing was answered).
public struct WakeResult: Sendable, Hashable {
  /// The claimed wake.
  public var wake: Wake
  /// What the attempt came to.
  public var outcome: WakeOutcome
  /// The gateway's status, nil if none.
  public var status: Int?

  /// Creates a result.
  public init(wake: Wake, outcome: WakeOutcome, status: Int?) {
    self.wake = wake
    self.outcome = outcome
    self.status = status
  }
}

/// The durable wake outbox of `Docs/VendoringPushRelay.md`: enqueue once per (origin, endpoint, event), claim
/// with a fence, count attempts, back off, and write an outcome only while the claim holds.
///
/// Synchronous like `LeaseStore`. A crash between claim and answer leaves a `sending` row whose
/// fence passes, so another claim retries it with the same `request_id`.
public protocol WakeOutbox: Sendable {
  /// Inserts the candidates (the first row per (origin, endpoint_hash, event id) wins) due now;
  /// returns the `request_id`s of the rows it created. A gift wrap's candidate is bounded per
  /// lease first (`DirectMessageWakeBound`): coalesced into a queued one, or due later.
  func enqueue(_ candidates: [WakeCandidate], nowMilliseconds: Int64) throws(PushRelayError) -> [String]

  /// In one transaction: fails expired rows and fenced-out rows at the last attempt, then claims
  /// at most `limit` due rows, earliest first (`sending`, fence now + 30 s, attempts + 1).
  func claim(nowMilliseconds: Int64, limit: Int) throws(PushRelayError) -> [Wake]

  /// Writes `outcome` for a claimed `wake` if the claim still holds (same attempts, `sending`,
  /// fence not passed); returns whether it was written.
  func record(_ outcome: WakeOutcome, for wake: Wake, status: Int?, nowMilliseconds: Int64)
    throws(PushRelayError) -> Bool

  /// Writes a batch of outcomes, each only while its claim holds, in one transaction; returns
  /// whether each was written, in order.
  func record(_ results: [WakeResult], nowMilliseconds: Int64) throws(PushRelayError) -> [Bool]

  /// Deletes rows an hour past their expiry; returns how many went.
  func sweep(nowMilliseconds: Int64) throws(PushRelayError) -> Int

  /// Every row, oldest first, for tests and the demo.
  func wakes() throws(PushRelayError) -> [Wake]
}

extension WakeOutbox {
  /// Writes one outcome as a batch of one (`record(_:nowMilliseconds:)`), so every outbox guards
  /// it the same way.
  public func record(
    _ outcome: WakeOutcome, for wake: Wake, status: Int?, nowMilliseconds: Int64
  ) throws(PushRelayError) -> Bool {
    try record([WakeResult(wake: wake, outcome: outcome, status: status)], nowMilliseconds: nowMilliseconds)
      == [true]
  }
}

/// The outbox's numbers, all from `Docs/VendoringPushRelay.md`.
public enum WakeSchedule {
  /// The most attempts of one wake.
  package static let maxAttempts = 8
  /// The most rows one claim takes.
  public static let claimBatch = 16
  /// How long a claim holds (30 s).
  package static let fenceMilliseconds: Int64 = 30_000
  /// The retry base without a usable `retry_after_seconds` (2 s).
  package static let defaultRetryBaseSeconds: Int64 = 2
  /// The largest `retry_after_seconds` honoured (3600); larger values are capped.
  package static let maxRetryAfterSeconds: Int64 = 3600
  /// The largest doubling exponent: the delay stops growing after the seventh attempt.
  package static let maxBackoffExponent = 6
  /// How long a row stays after its expiry (1 h).
  package static let retentionSeconds: Int64 = 3600
  /// The longest a wake may live past its event's `created_at` (1 h).
  package static let maxWakeLifetimeSeconds: Int64 = 3600

  /// The state and next attempt (Unix ms) an outcome writes for `wake` at `nowMilliseconds`: a
  /// retry at the last attempt fails; otherwise it waits base × 2^min(attempts − 1, 6) s.
  package static func next(after outcome: WakeOutcome, of wake: Wake, nowMilliseconds: Int64) -> (
    WakeState, Int64
  ) {
    switch outcome {
    case .delivered: return (.delivered, wake.nextAttemptMilliseconds)
    case .failed: return (.failed, wake.nextAttemptMilliseconds)
    case .retry(let base):
      guard wake.attempts < maxAttempts else { return (.failed, wake.nextAttemptMilliseconds) }
      return (.pending, nowMilliseconds + retryDelayMilliseconds(attempts: wake.attempts, baseSeconds: base))
    }
  }

  /// The delay before the next attempt after `attempts` attempts, with `baseSeconds`, in ms.
  package static func retryDelayMilliseconds(attempts: Int, baseSeconds: Int64) -> Int64 {
    let exponent = min(max(attempts - 1, 0), maxBackoffExponent)
    return baseSeconds * Int64(1 << exponent) * 1000
  }
}
