import NostrEvent
import NostrPushCore

/// What one claimed attempt came to: the answer (nil when nothing was sent) and the outcome
/// written, if the claim still held; what `PushRelay.deliverOnce()` returns per wake.
public struct WakeAttempt: Sendable, Hashable {
  /// The wake's `request_id`.
  public var requestID: String
  /// The attempt number (1…8).
  public var attempt: Int
  /// The gateway's answer; nil when the send-time re-check failed and nothing was sent.
  public var answer: GatewayAnswer?
  /// The outcome the table gives.
  public var outcome: WakeOutcome
  /// Whether the outcome was written (false: the claim had passed its fence).
  public var recorded: Bool
}

/// Claims due wakes, re-checks each lease, sends the signed request and writes what the gateway's
/// answer means: the reaction table of `Docs/VendoringPushRelay.md`.
///
/// `PushRelay.run()` drives it: woken by every enqueue through its `WakeSignal`, it claims again
/// at once after a full batch and otherwise idles on a fallback timer, so no wake waits for a
/// timer. A test drives it one sweep at a time with `runOnce()` on an injected clock, so no test
/// sleeps through a backoff. Signing uses the push key of the wake's `key_id`; with one key held,
/// that key whatever the id.
package final class DeliveryWorker: Sendable {
  /// The default fallback timer: how long an idle worker waits for a signal (1 s).
  package static let defaultFallbackInterval: Duration = .seconds(1)
  /// How often the worker deletes rows an hour past their expiry (at most once a minute).
  package static let sweepIntervalMilliseconds: Int64 = 60_000

  private let store: any LeaseStore
  private let outbox: any WakeOutbox
  private let client: GatewayClient
  private let signingKey: @Sendable (String) -> SecretKey?
  private let roster: any RosterSource
  private let clock: UnixClock
  private let signal: any WakeSignal
  private let lastSweep = Locked<Int64?>(nil)
  /// How long an idle worker waits for a signal before claiming anyway.
  package let fallbackInterval: Duration

  /// A worker over `store` and `outbox` (normally on one `PushStateDatabase`), sending through
  /// `client`, signing with `signingKey(keyID)`, re-checking channel membership with `roster`,
  /// woken by `signal`.
  package init(
    store: any LeaseStore, outbox: any WakeOutbox, client: GatewayClient,
    signingKey: @escaping @Sendable (String) -> SecretKey?, roster: any RosterSource,
    clock: UnixClock = .system,
    signal: any WakeSignal = InProcessWakeSignal(), fallbackInterval: Duration = defaultFallbackInterval
  ) {
    self.store = store
    self.outbox = outbox
    self.client = client
    self.signingKey = signingKey
    self.roster = roster
    self.clock = clock
    self.signal = signal
    self.fallbackInterval = fallbackInterval
  }

  /// A worker signing with `pushKeys` by key id (with one key, that key whatever the id).
  package convenience init(
    store: any LeaseStore, outbox: any WakeOutbox, client: GatewayClient, pushKeys: [String: SecretKey],
    roster: any RosterSource, clock: UnixClock = .system, signal: any WakeSignal = InProcessWakeSignal(),
    fallbackInterval: Duration = defaultFallbackInterval
  ) {
    self.init(
      store: store, outbox: outbox, client: client,
      signingKey: { id in pushKeys[id] ?? (pushKeys.count == 1 ? pushKeys.first?.value : nil) },
      roster: roster, clock: clock, signal: signal, fallbackInterval: fallbackInterval)
  }

  /// How many claim → send → record loops run at once (each claims its own rows, so they never
  /// send one wake twice): a batch waiting on its slowest request or its commit does not hold up
  /// the next. Eight loops of 16 keep up to 128 requests in flight: against a gateway 50 ms away,
  /// four loops (64 in flight) could not pass 1 280 wakes/s. Measured with the gateway fixture on
  /// loopback (`nostr-push-bench --profile delivery`, 10 000 wakes, 2 cores): 4 loops 1 486–1 855
  /// wakes/s, 8 loops 1 895–2 223, 16 loops 1 118–1 392 (more threads contending for two cores).
  package static let concurrentBatches = 8

  /// Delivers until `shouldStop()` or cancellation, in `concurrentBatches` loops: a full batch
  /// claims again at once, anything less waits for the signal (or the fallback timer); a storage
  /// failure waits the same way.
  package func run(until shouldStop: @escaping @Sendable () -> Bool = { false }) async {
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<Self.concurrentBatches {
        group.addTask { [self] in await loop(until: shouldStop) }
      }
    }
  }

  private func loop(until shouldStop: @Sendable () -> Bool) async {
    while !Task.isCancelled && !shouldStop() {
      // Read before claiming: a notification that comes while this loop claims ends its wait.
      let seen = signal.count
      let claimed: Int
      do {
        claimed = try await runOnce().count
      } catch {
        claimed = 0
      }
      if claimed >= WakeSchedule.claimBatch { continue }
      guard !Task.isCancelled && !shouldStop() else { return }
      await signal.wait(after: seen, timeout: fallbackInterval)
    }
  }

  /// One sweep: drops rows an hour past expiry (at most once a minute), claims up to one batch,
  /// sends them at once, and writes their outcomes in one transaction.
  @discardableResult
  package func runOnce() async throws(PushRelayError) -> [WakeAttempt] {
    let now = clock.nowMilliseconds()
    let sweepDue = lastSweep.withLock { last in
      guard last.map({ now - $0 >= Self.sweepIntervalMilliseconds || now < $0 }) ?? true else { return false }
      last = now
      return true
    }
    // The database steps are synchronous and may wait on a lock (the busy timeout), so they run
    // through BlockingWork, off the cooperative pool: one hop for the sweep, the claim and the
    // send-time re-checks of the batch, one for the outcomes.
    let claimed = try await BlockingWork.run { [self] () throws(PushRelayError) -> [(Wake, Bool)] in
      if sweepDue { _ = try outbox.sweep(nowMilliseconds: now) }
      var claimed: [(Wake, Bool)] = []
      for wake in try outbox.claim(nowMilliseconds: now, limit: WakeSchedule.claimBatch) {
        claimed.append((wake, try stillWanted(wake)))
      }
      return claimed
    }
    guard !claimed.isEmpty else { return [] }
    let results = await withTaskGroup(of: (Int, Result<Sent, PushRelayError>).self) { group in
      for (index, (wake, wanted)) in claimed.enumerated() {
        group.addTask { [self] in
          do throws(PushRelayError) {
            return (index, .success(try await attempt(wake, wanted: wanted)))
          } catch {
            return (index, .failure(error))
          }
        }
      }
      var results: [(Int, Result<Sent, PushRelayError>)] = []
      for await result in group { results.append(result) }
      return results.sorted { $0.0 < $1.0 }.map(\.1)
    }
    var sent: [Sent] = []
    for result in results { sent.append(try result.get()) }
    let outcomes = sent.map { WakeResult(wake: $0.wake, outcome: $0.outcome, status: $0.status) }
    let recordedAt = clock.nowMilliseconds()
    let written = try await BlockingWork.run { [outbox] () throws(PushRelayError) in
      try outbox.record(outcomes, nowMilliseconds: recordedAt)
    }
    return zip(sent, written).map { sent, recorded in
      WakeAttempt(
        requestID: sent.wake.requestID, attempt: sent.wake.attempts, answer: sent.answer,
        outcome: sent.outcome,
        recorded: recorded)
    }
  }

  /// One attempt before its outcome is written.
  private struct Sent: Sendable {
    var wake: Wake
    var answer: GatewayAnswer?
    var outcome: WakeOutcome
    var status: Int?
  }

  /// One claimed wake: send unless the re-check said no (`wanted`), react (the outcome is written
  /// with the batch).
  private func attempt(_ wake: Wake, wanted: Bool) async throws(PushRelayError) -> Sent {
    guard wanted, let key = signingKey(wake.candidate.keyID) else {
      return Sent(wake: wake, answer: nil, outcome: .failed, status: nil)
    }
    let (answer, status) = await client.deliver(wake, key: key, now: clock.now())
    let outcome = Self.outcome(of: answer, attempt: wake.attempts)
    if case .invalidEndpoint = answer {
      let candidate = wake.candidate
      _ = try await BlockingWork.run { [store] () throws(PushRelayError) in
        try store.disableEndpoint(
          address: candidate.address, generation: candidate.generation, endpointHash: candidate.endpointHash)
      }
    }
    return Sent(wake: wake, answer: answer, outcome: outcome, status: status)
  }

  /// The reaction table: what `answer` on attempt `attempt` means for the wake.
  package static func outcome(of answer: GatewayAnswer, attempt: Int) -> WakeOutcome {
    switch answer {
    case .accepted: .delivered
    case .unexpectedSuccess, .invalidEndpoint, .unsupportedTransport, .refused: .failed
    case .unavailable(let seconds), .rateLimited(let seconds):
      .retry(baseSeconds: seconds ?? WakeSchedule.defaultRetryBaseSeconds)
    case .unreachable: .retry(baseSeconds: WakeSchedule.defaultRetryBaseSeconds)
    case .notFound: attempt <= 1 ? .failed : .delivered
    }
  }

  /// The send-time re-check: the lease row still has the wake's generation and endpoint, is
  /// active, enabled and unexpired, and a channel's roster still lists the pubkey.
  private func stillWanted(_ wake: Wake) throws(PushRelayError) -> Bool {
    let candidate = wake.candidate
    guard let lease = try store.lease(at: candidate.address), lease.generation == candidate.generation,
      lease.endpointHash == candidate.endpointHash, lease.isLive(now: clock.now())
    else { return false }
    if let channel = candidate.channel {
      guard
        roster.members(ofChannel: channel, origin: candidate.address.origin)?.contains(
          candidate.address.pubkey) == true
      else { return false }
    }
    return true
  }
}
