import NostrEvent
import NostrPushCore

/// What one claimed attempt came to: the answer (nil when nothing was sent) and the outcome
/// written, if the claim still held.
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
/// answer means: the reaction table of `push-relay.md`.
///
/// It runs on its own task (`run()`), or a test drives it one sweep at a time with `runOnce()` on
/// an injected clock, so no test sleeps through a backoff. Signing uses the push key of the
/// wake's `key_id`; with one key held, that key whatever the id.
public final class DeliveryWorker: Sendable {
  /// The default pause between sweeps (100 ms).
  public static let defaultSweepInterval: Duration = .milliseconds(100)
  /// The longest pause between sweeps the fixture allows (200 ms).
  public static let maxFixtureSweepInterval: Duration = .milliseconds(200)

  private let store: any LeaseStore
  private let outbox: any WakeOutbox
  private let client: GatewayClient
  private let pushKeys: [String: SecretKey]
  private let roster: any RosterSource
  private let clock: UnixClock
  /// The pause between sweeps of `run()`.
  public let sweepInterval: Duration

  /// A worker over `store` and `outbox` (normally on one `PushStateDatabase`), sending through
  /// `client`, signing with `pushKeys` (by key id), re-checking channel membership with `roster`.
  public init(
    store: any LeaseStore, outbox: any WakeOutbox, client: GatewayClient, pushKeys: [String: SecretKey],
    roster: any RosterSource, clock: UnixClock = .system, sweepInterval: Duration = defaultSweepInterval
  ) {
    self.store = store
    self.outbox = outbox
    self.client = client
    self.pushKeys = pushKeys
    self.roster = roster
    self.clock = clock
    self.sweepInterval = sweepInterval
  }

  /// Sweeps until the task is cancelled; a storage failure waits for the next sweep.
  public func run() async {
    while !Task.isCancelled {
      _ = try? await runOnce()
      try? await Task.sleep(for: sweepInterval)
    }
  }

  /// One sweep: drops rows an hour past expiry, claims up to one batch, and sends them at once.
  @discardableResult
  public func runOnce() async throws(PushRelayError) -> [WakeAttempt] {
    let now = clock.nowMilliseconds()
    _ = try outbox.sweep(nowMilliseconds: now)
    let claimed = try outbox.claim(nowMilliseconds: now, limit: WakeSchedule.claimBatch)
    guard !claimed.isEmpty else { return [] }
    let results = await withTaskGroup(of: (Int, Result<WakeAttempt, PushRelayError>).self) { group in
      for (index, wake) in claimed.enumerated() {
        group.addTask { [self] in
          do throws(PushRelayError) {
            return (index, .success(try await attempt(wake)))
          } catch {
            return (index, .failure(error))
          }
        }
      }
      var results: [(Int, Result<WakeAttempt, PushRelayError>)] = []
      for await result in group { results.append(result) }
      return results.sorted { $0.0 < $1.0 }.map(\.1)
    }
    var attempts: [WakeAttempt] = []
    for result in results { attempts.append(try result.get()) }
    return attempts
  }

  /// One claimed wake: re-check, send, react.
  private func attempt(_ wake: Wake) async throws(PushRelayError) -> WakeAttempt {
    guard try stillWanted(wake), let key = signingKey(for: wake.candidate.keyID) else {
      let recorded = try outbox.record(
        .failed, for: wake, status: nil, nowMilliseconds: clock.nowMilliseconds())
      return WakeAttempt(
        requestID: wake.requestID, attempt: wake.attempts, answer: nil, outcome: .failed, recorded: recorded)
    }
    let (answer, status) = await client.deliver(wake, key: key, now: clock.now())
    let outcome = Self.outcome(of: answer, attempt: wake.attempts)
    if case .invalidEndpoint = answer {
      _ = try store.disableEndpoint(
        address: wake.candidate.address, generation: wake.candidate.generation,
        endpointHash: wake.candidate.endpointHash)
    }
    let recorded = try outbox.record(
      outcome, for: wake, status: status, nowMilliseconds: clock.nowMilliseconds())
    return WakeAttempt(
      requestID: wake.requestID, attempt: wake.attempts, answer: answer, outcome: outcome, recorded: recorded)
  }

  /// The reaction table: what `answer` on attempt `attempt` means for the wake.
  public static func outcome(of answer: GatewayAnswer, attempt: Int) -> WakeOutcome {
    switch answer {
    case .accepted: .delivered
    case .unexpectedSuccess, .invalidEndpoint, .unsupportedTransport, .refused: .failed
    case .unavailable(let seconds): .retry(baseSeconds: seconds ?? WakeSchedule.defaultRetryBaseSeconds)
    case .rateLimited, .unreachable: .retry(baseSeconds: WakeSchedule.defaultRetryBaseSeconds)
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

  private func signingKey(for keyID: String) -> SecretKey? {
    if let key = pushKeys[keyID] { return key }
    return pushKeys.count == 1 ? pushKeys.first?.value : nil
  }
}
