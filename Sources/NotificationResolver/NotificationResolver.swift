import EnrichmentCache
import Foundation
import NostrEvent
import NostrPushCore

/// Turns one content-free push wake into the notification it was for: query the relay, verify,
/// select exactly once, enrich within the budget, and compose the content — or a fallback with
/// its reason, always within query timeout + budget + 1 s.
///
/// Create one per wake with the account's configuration and the shared cache (opened with a busy
/// timeout of at most 250 ms), call ``start(deadline:)`` with the extension's expiry, await the
/// session's ``WakeResolution/plan()`` (or take ``WakeResolution/currentPlan()`` on expiry), mark
/// it presented, present it, and — if the process may stay alive — await
/// ``Resolution/lingering`` so late enrichment reaches the cache. ``resolve()`` does all but the
/// presenting in one call.
///
/// Selection claims in two phases (`notification-resolver.md` §2): the wake's candidates are
/// claimed in one transaction (a claim stays live 40 s), and marked presented when
/// the plan is handed over; the newest claimed one is shown with `more_count` for the rest.
///
/// Decisions where the spec is silent:
/// - The NIP-11 `self` fetch runs beside the message query (both within the query timeout); only
///   the channel pair waits for it, and without a relay key no channel record is trusted.
/// - Channel metadata and membership are fetched as two bounded requests but refreshed as a pair:
///   both are asked for when either is stale, shown as each arrives, and stored in one write.
/// - The first busy or locked answer from the cache switches it off for the rest of the wake
///   (marking presented still gets its own busy timeout); a claim the cache cannot answer
///   delivers without the once-guarantee rather than not at all.
/// - The expiry path's plain plan renders mentions as compact npubs (no cache read while iOS
///   waits); it is not refined as names arrive — the final plan carries them.
/// - Avatar downloads for the same URL are shared within a process, not across processes.
/// - The outer deadline (``start(deadline:)``, by default query timeout + budget + 1 s) cancels
///   the wake's work; a claim still waiting for the cache's write lock then rolls back.
public struct NotificationResolver: Sendable {
  /// The slack on top of query timeout + budget within which every resolution ends.
  public static let deadlineSlack: Duration = .seconds(1)
  /// The most messages one wake claims and covers, whatever the filters' limits add up to (the
  /// cache's claim batch).
  package static let maxCoveredPerWake = EnrichmentCache.maxClaimBatch

  private let configuration: ResolverConfiguration
  private let store: (any EnrichmentStore)?
  private let clock: UnixClock

  /// Creates a resolver for one wake.
  ///
  /// `cache` nil means enrichment from the relay only, and no delivery-once guarantee.
  public init(configuration: ResolverConfiguration, cache: EnrichmentCache?, clock: UnixClock = .system) {
    self.init(configuration: configuration, store: cache.map(CacheStore.init), clock: clock)
  }

  init(configuration: ResolverConfiguration, store: (any EnrichmentStore)?, clock: UnixClock) {
    self.configuration = configuration
    self.store = store
    self.clock = clock
  }

  /// Starts resolving the wake within the default deadline: query timeout + budget +
  /// ``deadlineSlack`` from now.
  public func start() -> WakeResolution {
    start(deadline: .now + configuration.queryTimeout + configuration.budget + Self.deadlineSlack)
  }

  /// Starts resolving the wake by `deadline`, the extension's own expiry: the session's
  /// ``WakeResolution/plan()`` arrives by then, and the query and the enrichment budget are cut to
  /// fit it.
  ///
  /// When the deadline passes first, the wake's work is cancelled and the `timeout` fallback is
  /// the outcome — unless messages were already claimed, which are then presented from the
  /// message alone, so a claimed message is never dropped for the fallback.
  public func start(deadline: ContinuousClock.Instant) -> WakeResolution {
    let progress = WakeProgress()
    let task = Task { await resolve(deadline: deadline, progress: progress) }
    return WakeResolution(progress: progress, task: task, store: store, clock: clock)
  }

  /// Resolves the wake within the default deadline and marks the outcome presented: for a caller
  /// that presents it at once (the CLI, tests). An extension uses ``start(deadline:)``.
  public func resolve() async -> Resolution {
    await resolve(
      deadline: .now + configuration.queryTimeout + configuration.budget + Self.deadlineSlack)
  }

  /// Resolves the wake by `deadline` and marks the outcome presented (``start(deadline:)``, then
  /// ``WakeResolution/plan()`` and ``WakeResolution/markPresented(_:)``).
  public func resolve(deadline: ContinuousClock.Instant) async -> Resolution {
    let session = start(deadline: deadline)
    let resolution = await session.plan()
    await session.markPresented(resolution.outcome)
    return resolution
  }

  private func resolve(deadline: ContinuousClock.Instant, progress: WakeProgress) async -> Resolution {
    let started = ContinuousClock.now
    let raced = await DeadlineRace.value(by: deadline, cancelsOperation: true) {
      await run(started: started, deadline: deadline, progress: progress)
    }
    let (outcome, lingering): (NotificationOutcome, LingeringWork)
    if let raced {
      (outcome, lingering) = raced
      progress.finish(outcome)
    } else {
      (outcome, lingering) = (progress.current(), .none)
    }
    let finished = ContinuousClock.now
    return Resolution(
      outcome: outcome, elapsed: started.duration(to: finished),
      enrichmentElapsed: progress.chosenAt.map { $0.duration(to: finished) }, lingering: lingering)
  }

  /// One wake on one client; a WebSocket client is closed once the wake's lingering work ends.
  private func run(
    started: ContinuousClock.Instant, deadline: ContinuousClock.Instant, progress: WakeProgress
  ) async -> (NotificationOutcome, LingeringWork) {
    let client = RelayClient(
      origin: configuration.relay, key: configuration.secretKey, transport: configuration.transport,
      clock: clock, queryTransport: configuration.queryTransport)
    let (outcome, lingering) = await run(
      client: client, started: started, deadline: deadline, progress: progress)
    guard configuration.queryTransport == .websocket else { return (outcome, lingering) }
    let closing = Task {
      await lingering.wait()
      await client.close()
    }
    return (outcome, lingering.adding(closing))
  }

  /// The filters as sent: each with `since` = now − the presentation window unless it has a
  /// later one (its `limit` is added by the client).
  private func queryFilters(now: Int64) -> [Filter] {
    let since = now - configuration.presentationWindowSeconds
    return configuration.filters.map { filter in
      var filter = filter
      filter.since = max(filter.since ?? since, since)
      return filter
    }
  }

  /// How many messages one wake may cover: the sum of the requests' limits.
  private var coverageLimit: Int {
    let sum = configuration.filters.reduce(0) { $0 + max(0, $1.limit ?? RelayClient.defaultLimit) }
    return min(sum, Self.maxCoveredPerWake)
  }

  private func run(
    client: RelayClient, started: ContinuousClock.Instant, deadline: ContinuousClock.Instant,
    progress: WakeProgress
  ) async -> (NotificationOutcome, LingeringWork) {
    let account = configuration.account
    let now = clock.now()
    // Every cache call may wait out the busy timeout: it runs through `BlockingWork`, never on the
    // cooperative pool the deadline's timer needs.
    if let store, await !BlockingWork.run({ store.registerAccount(account) }) {
      return (.fallback(.accountRemoved), .none)
    }
    let queryDeadline = min(started + configuration.queryTimeout, deadline)
    let relayKeyTask: Task<String?, Never>
    if let configured = configuration.relayPubkey {
      relayKeyTask = Task { configured }
    } else {
      relayKeyTask = Task { try? await client.relayKey(deadline: queryDeadline) }
    }
    let events: [Event]
    do {
      events = try await client.query(
        queryFilters(now: now), cap: RelayClient.messageQueryCap, deadline: queryDeadline)
    } catch {
      relayKeyTask.cancel()
      return (.fallback(error.reason), .none)
    }
    let scope = StoreScope(account: account, relay: configuration.relay)
    let composer = NotificationComposer(
      scope: scope, community: configuration.community, avatarDirectory: configuration.avatarDirectory)
    let covered: CoveredMessages
    switch await BlockingWork.run({
      selectAndClaim(events, scope: scope, now: now, progress: progress, composer: composer)
    }) {
    case .covered(let claimed):
      covered = claimed
      configuration.afterClaim?()
    case .noEligibleEvent:
      relayKeyTask.cancel()
      return (nothingNew(.noEligibleEvent), .none)
    case .nothingNew:
      relayKeyTask.cancel()
      return (nothingNew(.alreadyDelivered), .none)
    case .refused(let reason):
      relayKeyTask.cancel()
      return (.fallback(reason), .none)
    }
    let chosenAt = progress.chosenAt ?? .now
    let enrichDeadline = min(chosenAt + configuration.budget, deadline)
    let message = covered.shown
    let target = MessageTarget(eventID: message.id, tags: message.tags)
    let enrichment = EnrichmentRun(
      scope: scope, sender: message.pubkey, channelID: target.channelID,
      relayKey: { await relayKeyTask.value }, store: store,
      client: client,
      avatars: AvatarFetcher(
        relay: configuration.relay, key: configuration.secretKey, transport: configuration.transport,
        clock: clock),
      now: now, requestTimeout: configuration.queryTimeout)
    let (parts, lingering) = await enrichment.run(deadline: enrichDeadline)
    let store = self.store
    let notification = await BlockingWork.run {
      composer.compose(covered, parts: parts) { pubkey in
        store?.profile(scope, pubkey: pubkey, now: now)?.displayName
      }
    }
    return (.resolved(notification), lingering)
  }

  private func nothingNew(_ reason: FallbackReason) -> NotificationOutcome {
    .nothingNew(reason, suppress: configuration.canFilterNotifications)
  }

  /// Selects the eligible events of the answer by the relay's rule, with the rosters the cache
  /// holds (each channel and key looked up once), and claims them.
  private func selectAndClaim(
    _ events: [Event], scope: StoreScope, now: Int64, progress: WakeProgress, composer: NotificationComposer
  ) -> Claim {
    let store = self.store
    let signer = configuration.relayPubkey
    var known: [String: Bool?] = [:]
    let membership = { (channel: String, pubkey: String) -> Bool? in
      let key = channel + " " + pubkey
      if let answer = known[key] { return answer }
      let answer = store?.isListed(scope, channelID: channel, pubkey: pubkey, signer: signer, now: now)
      known[key] = answer
      return answer
    }
    let candidates = MessageSelector(configuration: configuration, now: now).candidates(
      events, membership: membership)
    guard !candidates.isEmpty else { return .noEligibleEvent }
    return claim(Array(candidates.prefix(coverageLimit)), now: now, progress: progress, composer: composer)
  }

  /// Claims `candidates` (newest first) in one transaction: the claimed ones are the wake's
  /// messages, the newest shown and the rest covered. Without a cache, or when the cache cannot
  /// answer, all are taken without the once-guarantee; either way only while the wake has not
  /// ended (`progress`).
  private func claim(
    _ candidates: [Event], now: Int64, progress: WakeProgress, composer: NotificationComposer
  ) -> Claim {
    let covering = { (ids: [String], recorded: Bool) -> CoveredMessages? in
      let chosen = candidates.filter { ids.contains($0.id) }
      guard let shown = chosen.first else { return nil }
      return CoveredMessages(shown: shown, ids: chosen.map(\.id), isRecorded: recorded)
    }
    let admit = { (ids: [String], recorded: Bool) -> Bool in
      guard let covered = covering(ids, recorded) else { return false }
      return progress.admit(covered, plain: .resolved(composer.compose(covered, parts: EnrichedParts())))
    }
    let ids = candidates.map(\.id)
    var recorded = false
    let taken: [String]
    if let store {
      switch store.claimDeliveries(
        ids, account: configuration.account, relay: configuration.relay, now: now,
        commitIf: { admit($0, true) })
      {
      case .claimed(let claimed):
        taken = claimed
        recorded = true
      case .alreadyDelivered: return .nothingNew
      case .unavailable:
        guard admit(ids, false) else { return .refused(.timeout) }
        taken = ids
      case .accountRemoved: return .refused(.accountRemoved)
      case .abandoned: return .refused(.timeout)
      }
    } else {
      guard admit(ids, false) else { return .refused(.timeout) }
      taken = ids
    }
    guard let covered = covering(taken, recorded) else { return .nothingNew }
    return .covered(covered)
  }

  /// What the claim step decided: the wake's messages, nothing new, or the fallback it must show.
  private enum Claim {
    case covered(CoveredMessages)
    case noEligibleEvent
    case nothingNew
    case refused(FallbackReason)
  }
}

/// The result of one wake: the outcome, how long it took, and the work still writing to the cache.
public struct Resolution: Sendable {
  /// The notification to present, or the fallback with its reason.
  public var outcome: NotificationOutcome
  /// From the start of ``NotificationResolver/resolve()`` to the outcome: what an extension logs
  /// against its time limit.
  public var elapsed: Duration
  /// From choosing the message (the start of the enrichment budget) to the outcome; nil for a
  /// fallback decided before a message was chosen.
  public var enrichmentElapsed: Duration?
  /// Enrichment requests still running; await them to let their results reach the cache.
  public var lingering: LingeringWork
}
