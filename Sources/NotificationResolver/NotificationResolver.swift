import EnrichmentCache
import Foundation
import NostrEvent
import NostrPushCore
import PushLease

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
/// Selection claims in two phases (`Docs/NotificationServiceExtension.md`): the wake's candidates are
/// claimed in one transaction (a claim stays live 40 s), and marked presented when
/// the plan is handed over; the newest claimed one is shown with `more_count` for the rest.
///
/// Decisions where the spec is silent:
/// - An answer cut at its byte cap (or by the connection) keeps its whole events (hardening §1);
///   when they hold no message this wake can present, the outcome is the `invalid_response`
///   fallback, never `nothing_new` — the wake's message may lie past the cut, and a filtering
///   extension would drop a `nothing_new` silently.
/// - The NIP-11 `self` fetch runs beside the message query (both within the query timeout); only
///   the channel pair waits for it, and without a relay key no channel record is trusted.
/// - Channel metadata and membership are fetched as two bounded requests but refreshed as a pair:
///   both are asked for when either is stale, shown as each arrives, and stored in one write.
/// - The first busy or locked answer from the cache switches its records off for the rest of the
///   wake (marking presented still gets its own busy timeout). Claims live in their own file and
///   wait up to the wake's deadline; a claim that still cannot be recorded presents the fallback
///   (`claim_unavailable`), never a message it could not claim (hardening §2). Without a cache
///   (nil) there is no once-guarantee at all.
/// - The expiry path's plain plan renders mentions as compact npubs (no cache read while iOS
///   waits); it is not refined as names arrive — the final plan carries them.
/// - Avatar downloads for the same URL are shared within a process, not across processes.
/// - Direct messages are asked for only for an account whose subscriptions
///   include the direct-message subscription (`{"kinds":[1059],"#p":[account]}`; compatibility
///   filters never do), which is left out of its message query; the gift-wrap request adds its
///   `limit` (20) to the wake's coverage. A failed gift-wrap request costs only the direct
///   messages; a failed message query fails the account unless wraps arrived.
/// - The outer deadline (``start(deadline:)``, by default query timeout + budget + 1 s) cancels
///   the wake's work; a claim still waiting for the cache's write lock then rolls back.
public struct NotificationResolver: Sendable {
  /// The slack on top of query timeout + budget within which every resolution ends.
  public static let deadlineSlack: Duration = .seconds(1)
  /// The most accounts one wake resolves for.
  public static let maxAccounts = 16
  /// The most messages one wake claims and covers, whatever the filters' limits add up to (the
  /// cache's claim batch).
  package static let maxCoveredPerWake = EnrichmentCache.maxClaimBatch

  /// The wake's settings: the first account's configuration.
  private let configuration: ResolverConfiguration
  /// Every account enrolled with the relay, in the configuration's order (the first is
  /// `configuration`).
  private let accounts: [ResolverConfiguration]
  private let store: (any EnrichmentStore)?
  private let clock: UnixClock
  /// Called right after the claim is written, before enrichment: the CLI's `--kill-after-claim`
  /// ends the process there (SIGKILL), as iOS would kill an extension. A test seam of the
  /// resolver, never part of a configuration.
  package var afterClaim: (@Sendable () -> Void)? = nil

  /// Creates a resolver for one wake of one account.
  ///
  /// `cache` nil means enrichment from the relay only, and no delivery-once guarantee.
  public init(configuration: ResolverConfiguration, cache: EnrichmentCache?, clock: UnixClock = .system) {
    self.init(accounts: [configuration], store: cache.map(CacheStore.init), clock: clock)
  }

  /// Creates a resolver for one wake of every account enrolled with one relay (the wake names no
  /// account): each configuration gives an account's key, subscriptions and muted senders; the
  /// first one's relay, relay key, budget, timeouts, window, avatar folder, transport and
  /// filtering flag apply to the wake. Queries run for all accounts in parallel within the one
  /// query timeout and their candidates meet in one ordering; a message two accounts see is
  /// presented once, for the first in this order.
  ///
  /// Throws `outOfRange` when `configurations` is empty or longer
  /// than ``maxAccounts``, or names more than one relay.
  public init(
    configurations: [ResolverConfiguration], cache: EnrichmentCache?, clock: UnixClock = .system
  ) throws(ResolverError) {
    guard let first = configurations.first, configurations.count <= Self.maxAccounts else {
      throw ResolverError(code: .outOfRange, field: "accounts", message: "1 to \(Self.maxAccounts) accounts")
    }
    guard configurations.allSatisfy({ $0.relay == first.relay }) else {
      throw ResolverError(
        code: .outOfRange, field: "accounts", message: "every account must name the same relay")
    }
    self.init(accounts: configurations, store: cache.map(CacheStore.init), clock: clock)
  }

  init(accounts: [ResolverConfiguration], store: (any EnrichmentStore)?, clock: UnixClock) {
    self.configuration = accounts[0]
    self.accounts = accounts
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
    let plans = WakePlans(composer: PlanComposer(accounts: accounts), progress: progress)
    let task = Task { await resolve(deadline: deadline, progress: progress, plans: plans) }
    return WakeResolution(progress: progress, plans: plans, task: task, store: store, clock: clock)
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
    await session.markPresented(resolution.plan)
    return resolution
  }

  private func resolve(
    deadline: ContinuousClock.Instant, progress: WakeProgress, plans: WakePlans
  ) async -> Resolution {
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
      plan: plans.plan(for: outcome), elapsed: started.duration(to: finished),
      enrichmentElapsed: progress.chosenAt.map { $0.duration(to: finished) }, lingering: lingering)
  }

  /// One wake, one client per account; WebSocket clients are closed once the wake's lingering
  /// work ends.
  private func run(
    started: ContinuousClock.Instant, deadline: ContinuousClock.Instant, progress: WakeProgress
  ) async -> (NotificationOutcome, LingeringWork) {
    let clients = accounts.map { account in
      RelayClient(
        origin: configuration.relay, key: account.secretKey, transport: configuration.transport,
        clock: clock, queryTransport: configuration.queryTransport)
    }
    let (outcome, lingering) = await run(
      clients: clients, started: started, deadline: deadline, progress: progress)
    guard configuration.queryTransport == .websocket else { return (outcome, lingering) }
    let closing = Task {
      await lingering.wait()
      for client in clients { await client.close() }
    }
    return (outcome, lingering.adding(closing))
  }

  /// `account`'s filters as sent: each with `since` = now − the presentation window unless it has
  /// a later one (its `limit` is added by the client).
  private func queryFilters(_ account: ResolverConfiguration, now: Int64) -> [Filter] {
    let since = now - configuration.presentationWindowSeconds
    return Self.messageFilters(account).map { filter in
      var filter = filter
      filter.since = max(filter.since ?? since, since)
      return filter
    }
  }

  /// The filters of `account`'s message query: its filters less the direct-message
  /// subscriptions', which have a request of their own (``DirectMessageInbox``).
  private static func messageFilters(_ account: ResolverConfiguration) -> [Filter] {
    guard account.compatibilityFilters == nil else { return account.filters }
    return account.subscriptions.filter {
      !DirectMessageInbox.isDirectMessageSubscription($0, owner: account.account)
    }.map(\.filter.queryFilter)
  }

  /// `account`'s direct-message inbox for a wake at `now`, when it asks for direct messages.
  private func inbox(_ account: ResolverConfiguration, now: Int64) -> DirectMessageInbox? {
    DirectMessageInbox(account: account, window: configuration.presentationWindowSeconds, now: now)
  }

  /// How many messages one wake may cover: the sum of the requests' limits over every account.
  private var coverageLimit: Int {
    let sum = accounts.reduce(0) { total, account in
      let messages = Self.messageFilters(account).reduce(0) {
        $0 + max(0, $1.limit ?? RelayClient.defaultLimit)
      }
      return total + messages + (inbox(account, now: 0) == nil ? 0 : DirectMessageInbox.limit)
    }
    return min(sum, Self.maxCoveredPerWake)
  }

  /// The accounts' answers, queried in parallel within the one query deadline: index and events
  /// for each account that answered, or the first failure when none did.
  private func queryAll(
    _ clients: [RelayClient], live: [Int], now: Int64, deadline: ContinuousClock.Instant
  ) async -> Result<[AccountAnswer], RelayFailure> {
    let results = await withTaskGroup(of: (Int, Result<AccountAnswer, RelayFailure>).self) { group in
      for index in live {
        let (client, filters) = (clients[index], queryFilters(accounts[index], now: now))
        let inbox = inbox(accounts[index], now: now)
        group.addTask {
          (
            index,
            await Self.query(client, filters: filters, inbox: inbox, account: index, deadline: deadline)
          )
        }
      }
      var results: [(Int, Result<AccountAnswer, RelayFailure>)] = []
      for await result in group { results.append(result) }
      return results.sorted { $0.0 < $1.0 }
    }
    var answers: [AccountAnswer] = []
    var firstFailure: RelayFailure?
    for (_, result) in results {
      switch result {
      case .success(let answer): answers.append(answer)
      case .failure(let failure): firstFailure = firstFailure ?? failure
      }
    }
    if answers.isEmpty, let firstFailure { return .failure(firstFailure) }
    return .success(answers)
  }

  /// One account's answer: the message query's verified events, and its gift-wrap request's
  /// verified wraps; `isCut` when either answer was cut at its byte cap
  /// (or by the connection), so more may have followed what was read.
  private struct AccountAnswer: Sendable {
    var account: Int
    var events: [Event]
    var wraps: [Event]
    var isCut = false
  }

  /// One account's requests, side by side within the one deadline: the message query (unless it
  /// has no filters) and, with an `inbox`, the gift-wrap request under its own cap and bounds. A
  /// failed gift-wrap request alone means no direct messages; a failed message query fails the
  /// account unless the gift-wrap request brought wraps (a wake must not say "nothing new" when
  /// its channel messages could not be read).
  private static func query(
    _ client: RelayClient, filters: [Filter], inbox: DirectMessageInbox?, account: Int,
    deadline: ContinuousClock.Instant
  ) async -> Result<AccountAnswer, RelayFailure> {
    async let wraps: Result<RelayClient.Answer, RelayFailure>? = {
      guard let inbox else { return nil }
      do throws(RelayFailure) {
        return .success(
          try await client.answer(
            [inbox.filter], cap: DirectMessageInbox.responseCap, limits: DirectMessageInbox.readLimits,
            deadline: deadline))
      } catch {
        return .failure(error)
      }
    }()
    let events: Result<RelayClient.Answer, RelayFailure>
    if filters.isEmpty {
      events = .success(RelayClient.Answer(events: [], isCut: false))
    } else {
      do throws(RelayFailure) {
        events = .success(
          try await client.answer(filters, cap: RelayClient.messageQueryCap, deadline: deadline))
      } catch {
        events = .failure(error)
      }
    }
    let wrapResult = await wraps
    switch (events, wrapResult) {
    case (.failure(let failure), .failure), (.failure(let failure), nil):
      return .failure(failure)
    case (.success(let events), .success(let wraps)):
      return .success(
        AccountAnswer(
          account: account, events: events.events, wraps: wraps.events, isCut: events.isCut || wraps.isCut))
    case (.success(let events), .failure), (.success(let events), nil):
      return .success(AccountAnswer(account: account, events: events.events, wraps: [], isCut: events.isCut))
    case (.failure(let failure), .success(let wraps)):
      guard !wraps.events.isEmpty else { return .failure(failure) }
      return .success(AccountAnswer(account: account, events: [], wraps: wraps.events, isCut: wraps.isCut))
    }
  }

  private func run(
    clients: [RelayClient], started: ContinuousClock.Instant, deadline: ContinuousClock.Instant,
    progress: WakeProgress
  ) async -> (NotificationOutcome, LingeringWork) {
    let now = clock.now()
    // Every cache call may wait out the busy timeout: it runs through `BlockingWork`, never on the
    // cooperative pool the deadline's timer needs.
    var live = Array(accounts.indices)
    if let store {
      let names = accounts.map(\.account)
      live = await BlockingWork.run { names.indices.filter { store.registerAccount(names[$0]) } }
      guard !live.isEmpty else { return (.fallback(.accountRemoved), .none) }
    }
    let queryDeadline = min(started + configuration.queryTimeout, deadline)
    let relayKeyTask: Task<String?, Never>
    if let configured = configuration.relayPubkey {
      relayKeyTask = Task { configured }
    } else {
      let client = clients[live[0]]
      relayKeyTask = Task { try? await client.relayKey(deadline: queryDeadline) }
    }
    let answers: [AccountAnswer]
    switch await queryAll(clients, live: live, now: now, deadline: queryDeadline) {
    case .success(let answered): answers = answered
    case .failure(let failure):
      relayKeyTask.cancel()
      return (.fallback(failure.reason), .none)
    }
    let composer = NotificationComposer(
      relay: configuration.relay, community: configuration.community,
      avatarDirectory: configuration.avatarDirectory, strings: configuration.strings)
    let covered: CoveredMessages
    switch await BlockingWork.run({
      selectAndClaim(answers, now: now, deadline: deadline, progress: progress, composer: composer)
    }) {
    case .covered(let claimed):
      covered = claimed
      afterClaim?()
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
    let owner = accounts[covered.account]
    let scope = StoreScope(account: owner.account, relay: configuration.relay)
    let store = self.store
    let reading = covered.socialReading
    guard case .channel(let message) = covered.shown, reading?.kind != .dm else {
      // A direct message is named from the cache alone: no request keyed by its sender.
      relayKeyTask.cancel()
      let sender = covered.shown.pubkey
      let notification = await BlockingWork.run {
        composer.compose(covered, parts: Self.cachedParts(store, scope, sender: sender, now: now)) { pubkey in
          store?.profile(scope, pubkey: pubkey, now: now)?.displayName
        }
      }
      return (.resolved(notification), .none)
    }
    let chosenAt = progress.chosenAt ?? .now
    let enrichDeadline = min(chosenAt + configuration.budget, deadline)
    let target = MessageTarget(eventID: message.id, tags: message.tags)
    var enrichment = EnrichmentRun(
      scope: scope, sender: reading?.named ?? message.pubkey,
      channelID: reading == nil ? target.channelID : nil,
      relayKey: { await relayKeyTask.value }, store: store,
      client: clients[covered.account],
      avatars: AvatarFetcher(
        relay: configuration.relay, key: owner.secretKey, transport: configuration.transport, clock: clock),
      now: now, requestTimeout: configuration.queryTimeout)
    if let reading {
      // The account's note a reaction or a zap is about, for the body; a custom emoji's image.
      enrichment.noteID = reading.kind == .reaction || reading.kind == .zap ? reading.targetID : nil
      enrichment.emojiURL = reading.reaction?.imageURL
    }
    let (parts, lingering) = await enrichment.run(deadline: enrichDeadline)
    let notification = await BlockingWork.run {
      composer.compose(covered, parts: parts) { pubkey in
        store?.profile(scope, pubkey: pubkey, now: now)?.displayName
      }
    }
    return (.resolved(notification), lingering)
  }

  /// What the cache alone knows of `sender`: the profile and, when it names a picture, the cached
  /// avatar (a direct message's sender is never looked up).
  private static func cachedParts(
    _ store: (any EnrichmentStore)?, _ scope: StoreScope, sender: String, now: Int64
  ) -> EnrichedParts {
    var parts = EnrichedParts()
    parts.profile = store?.profile(scope, pubkey: sender, now: now)
    if let picture = parts.profile?.picture {
      parts.avatar = store?.avatar(scope, pubkey: sender, url: picture, now: now)
    }
    return parts
  }

  private func nothingNew(_ reason: FallbackReason) -> NotificationOutcome {
    .nothingNew(reason, suppress: configuration.canFilterNotifications)
  }

  /// Selects the eligible events of each account's answer by the relay's rule, with the rosters
  /// the cache holds (each channel and key looked up once per account), meets them in one
  /// ordering (newest first, a tie to the lower id; a message two accounts see belongs to the
  /// first in the configuration's order), and claims them.
  private func selectAndClaim(
    _ answers: [AccountAnswer], now: Int64, deadline: ContinuousClock.Instant, progress: WakeProgress,
    composer: NotificationComposer
  ) -> Claim {
    let store = self.store
    let signer = configuration.relayPubkey
    var candidates: [WakeCandidate] = []
    var seen: Set<String> = []
    var unpresentable = false
    for answer in answers {
      let (index, events) = (answer.account, answer.events)
      let scope = StoreScope(account: accounts[index].account, relay: configuration.relay)
      var known: [String: Bool?] = [:]
      let membership = { (channel: String, pubkey: String) -> Bool? in
        let key = channel + " " + pubkey
        if let answer = known[key] { return answer }
        let answer = store?.isListed(scope, channelID: channel, pubkey: pubkey, signer: signer, now: now)
        known[key] = answer
        return answer
      }
      let selector = MessageSelector(configuration: accounts[index], window: configuration, now: now)
      for event in selector.candidates(events, membership: membership) where seen.insert(event.id).inserted {
        candidates.append(WakeCandidate(message: .channel(event), account: index))
      }
      if !unpresentable { unpresentable = selector.hasUnpresentable(events, membership: membership) }
      let direct = inbox(accounts[index], now: now)?.messages(in: answer.wraps) ?? []
      for message in direct where seen.insert(message.id).inserted {
        candidates.append(WakeCandidate(message: message, account: index))
      }
    }
    // A cut answer may hold the wake's message past the cut: it never reads as nothing new.
    let isCut = answers.contains(where: \.isCut)
    guard !candidates.isEmpty else {
      // What woke the device is never dropped as nothing new: a kind the resolver cannot present
      // is the fallback with its reason, even with the filtering entitlement.
      if unpresentable { return .refused(.unsupportedKind) }
      return isCut ? .refused(.invalidResponse) : .noEligibleEvent
    }
    candidates.sort { lhs, rhs in
      Event.supersedes(
        createdAt: lhs.message.createdAt, id: lhs.message.id, overCreatedAt: rhs.message.createdAt,
        id: rhs.message.id)
    }
    let claimed = claim(
      Array(candidates.prefix(coverageLimit)), now: now, deadline: deadline, progress: progress,
      composer: composer)
    if case .nothingNew = claimed, isCut { return .refused(.invalidResponse) }
    return claimed
  }

  /// Claims `candidates` (newest first) in one transaction, waiting for the claims' lock up to
  /// `deadline`: the claimed ones are the wake's messages, the newest shown and the rest covered.
  /// Without a cache all are taken without the once-guarantee; a claim the cache cannot record is
  /// the `claim_unavailable` fallback; either way only while the wake has not ended (`progress`).
  private func claim(
    _ candidates: [WakeCandidate], now: Int64, deadline: ContinuousClock.Instant, progress: WakeProgress,
    composer: NotificationComposer
  ) -> Claim {
    let accounts = self.accounts
    let covering = { (ids: [String], recorded: Bool) -> CoveredMessages? in
      let chosen = candidates.filter { ids.contains($0.message.id) }
      guard let shown = chosen.first else { return nil }
      return CoveredMessages(
        shown: shown.message, account: shown.account, accountKey: accounts[shown.account].account,
        ids: chosen.map(\.message.id), isRecorded: recorded,
        zapperPubkeys: accounts[shown.account].social.zapperPubkeys)
    }
    let admit = { (ids: [String], recorded: Bool) -> Bool in
      guard let covered = covering(ids, recorded) else { return false }
      return progress.admit(covered, plain: .resolved(composer.compose(covered, parts: EnrichedParts())))
    }
    let ids = candidates.map(\.message.id)
    var recorded = false
    let taken: [String]
    if let store {
      switch store.claimDeliveries(
        candidates.map { ($0.message.id, accounts[$0.account].account) }, relay: configuration.relay,
        now: now, deadline: deadline,
        commitIf: { admit($0, true) })
      {
      case .claimed(let claimed):
        taken = claimed
        recorded = true
      case .alreadyDelivered: return .nothingNew
      case .unavailable: return .refused(.claimUnavailable)
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

  /// One eligible message and the account (an index into the configurations) it belongs to.
  private struct WakeCandidate {
    var message: WakeMessage
    var account: Int
  }

  /// What the claim step decided: the wake's messages, nothing new, or the fallback it must show.
  private enum Claim {
    case covered(CoveredMessages)
    case noEligibleEvent
    case nothingNew
    case refused(FallbackReason)
  }
}

/// The result of one wake: the plan, how long it took, and the work still writing to the cache.
public struct Resolution: Sendable {
  /// What to present: the wake's outcome and everything the extension sets for it.
  public var plan: NotificationPlan
  /// The wake's outcome (the plan's): the notification, nothing new, or the fallback with its
  /// reason.
  public var outcome: NotificationOutcome { plan.outcome }
  /// From the start of ``NotificationResolver/resolve()`` to the outcome: what an extension logs
  /// against its time limit.
  public var elapsed: Duration
  /// From choosing the message (the start of the enrichment budget) to the outcome; nil for a
  /// fallback decided before a message was chosen.
  public var enrichmentElapsed: Duration?
  /// Enrichment requests still running; await them to let their results reach the cache.
  public var lingering: LingeringWork
}
