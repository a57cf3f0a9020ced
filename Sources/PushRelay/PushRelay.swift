import NostrEvent
import NostrPushCore
import PushDescriptor
import PushLease

/// Everything a relay calls for push, in one value (`Docs/VendoringPushRelay.md`, "One entry point").
///
/// - ``ingestLease(_:identity:)`` answers a kind 30350 `EVENT` (or `POST /events`) with its `OK`.
/// - ``didStore(_:receivedAt:)`` is called once the relay has stored any event, and again for an
///   event it already had (a client retrying after an `error:` answer): the event is recorded for
///   back-fill, matched against the live leases and its wakes enqueued, all committed together,
///   and the delivery worker is woken. A recorded event is not matched twice, so the call is
///   idempotent, and a failure throws for the relay's `error: internal server error`.
/// - ``run()`` / ``stop()`` run and stop the delivery worker (with a gateway).
///
/// The store and outbox are SQLite by default (`SQLiteLeaseStore` and `SQLiteWakeOutbox` on one
/// `PushStateDatabase`); the wake signal is in-process by default. A relay without a push key has
/// no `PushRelay` and answers `invalid: push not supported` itself.
public final class PushRelay: Sendable {
  /// The relay's descriptor: the tenant origin, `push_kinds` and `max_leases_per_pubkey`.
  package let descriptor: PushDescriptor
  /// The lease store.
  package let store: any LeaseStore
  /// The wake outbox.
  package let outbox: any WakeOutbox
  private let ingest: PushIngest
  private let matcher: PushMatcher
  private let roster: any RosterSource
  private let clock: UnixClock
  private let wakeSignal: any WakeSignal
  private let worker: DeliveryWorker?
  private let stopped = Locked(false)

  /// The relay's push side over these parts.
  ///
  /// - Parameters:
  ///   - validator: holds the push keys; opens leases and signs gateway requests.
  ///   - store: the lease store (`SQLiteLeaseStore`).
  ///   - outbox: the wake outbox on the same database (`SQLiteWakeOutbox`).
  ///   - descriptor: the relay's own push descriptor (the validator's).
  ///   - roster: the channel rosters the matcher, back-fill and the worker's re-check ask.
  ///   - gateway: where wakes go; nil runs no worker (wakes stay `pending`).
  ///   - clock: the one clock every time comparison reads.
  ///   - wakeSignal: wakes the worker on every enqueue.
  ///   - fallbackInterval: how long an idle worker waits for a signal before claiming anyway.
  ///
  /// A `SQLiteLeaseStore` (or `PostgresLeaseStore`) holds one protocol generation per origin
  ///: the descriptor's is recorded for its origin, and a store whose origin already has leases of the
  /// other generation throws `invalid_configuration` (field `nip11.json`), since leases and grants
  /// are not portable between generations.
  public init(
    validator: LeaseValidator, store: any LeaseStore, outbox: any WakeOutbox, descriptor: PushDescriptor,
    roster: any RosterSource, gateway: GatewayClient?, clock: UnixClock = .system,
    wakeSignal: any WakeSignal = InProcessWakeSignal(), fallbackInterval: Duration = .seconds(1)
  ) throws(PushRelayError) {
    if let binding = store as? any PushProtocolBinding {
      try binding.bindProtocol(descriptor.pushProtocol, origin: descriptor.origin)
    }
    self.descriptor = descriptor
    self.store = store
    self.outbox = outbox
    self.roster = roster
    self.clock = clock
    self.wakeSignal = wakeSignal
    self.matcher = PushMatcher(pushKinds: Set(descriptor.pushKinds))
    self.ingest = PushIngest(
      validator: validator, store: store, roster: roster, descriptor: descriptor, clock: clock)
    self.worker = gateway.map { client in
      DeliveryWorker(
        store: store, outbox: outbox, client: client, signingKey: { validator.signingKey(for: $0) },
        roster: roster, clock: clock, signal: wakeSignal, fallbackInterval: fallbackInterval)
    }
  }

  /// Answers a kind 30350 event from the authenticated `identity` (nil: none): the `OK` flag and
  /// message of `Docs/VendoringPushRelay.md`'s ingest table (steps 1, 2 and 4–7; the socket layer checked id
  /// and signature, as `VerifiedEvent` says). Throws for a storage failure, which the relay answers
  /// `error: internal server error` (`POST /events`: 500).
  public func ingestLease(_ event: VerifiedEvent, identity: String?) throws(PushRelayError) -> IngestAnswer {
    let answer = try ingest.ingest(event, identity: identity)
    if answer.accepted && answer.message.isEmpty { wakeSignal.notify() }
    return answer
  }

  /// Called once the relay has stored `event` (received at Unix second `receivedAt`), and again
  /// when it already had it: records it for back-fill, matches it and enqueues its wakes in one
  /// transaction, then wakes the worker. Idempotent; throws for a storage failure, which the
  /// relay answers `error: internal server error` so that the client retries.
  public func didStore(_ event: Event, receivedAt: Int64) throws(PushRelayError) {
    guard matcher.isEligible(event) else { return }
    let enqueued = try store.didStore(
      event, origin: descriptor.origin, receivedAt: receivedAt, roster: roster, now: clock.now())
    if enqueued > 0 { wakeSignal.notify() }
  }

  /// The kind 30350 events a REQ or `/query` with `filters` returns to `identity`: that author's
  /// current event per address matching some filter, newest first (none without an identity).
  public func visibleLeaseEvents(matching filters: [Filter], identity: String?) throws(PushRelayError)
    -> [Event]
  {
    try store.visibleLeaseEvents(matching: filters, identity: identity, origin: descriptor.origin)
  }

  /// Runs the delivery worker until ``stop()`` or cancellation; returns at once without a
  /// gateway.
  public func run() async {
    guard let worker else { return }
    let stopped = self.stopped
    await worker.run(until: { stopped.current })
  }

  /// Wakes the delivery worker to claim now, as an enqueue does: for a relay whose injected clock
  /// was moved past a backoff.
  package func wakeWorker() {
    wakeSignal.notify()
  }

  /// Asks a running ``run()`` to return once its batch in flight is written.
  public func stop() {
    stopped.withLock { $0 = true }
    wakeSignal.notify()
  }

  /// One delivery sweep instead of ``run()``, for a test that drives the worker on a manual clock:
  /// claims at most one batch, sends it and writes the outcomes; empty without a gateway.
  public func deliverOnce() async throws(PushRelayError) -> [WakeAttempt] {
    try await worker?.runOnce() ?? []
  }
}
