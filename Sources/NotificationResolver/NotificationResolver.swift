import EnrichmentCache
import Foundation
import NostrEvent
import NostrPushCore

/// Turns one content-free push wake into the notification it was for: query the relay, verify,
/// select exactly once, enrich within the budget, and compose the content — or a fallback with
/// its reason, always within query timeout + budget + 1 s.
///
/// Create one per wake with the account's configuration and the shared cache (opened with a busy
/// timeout of at most 250 ms), call ``resolve(deadline:)`` with the extension's expiry (or
/// ``resolve()`` for the default deadline), present the outcome, and — if the process may
/// stay alive — await ``Resolution/lingering`` so late enrichment reaches the cache.
///
/// Decisions where the spec is silent:
/// - The NIP-11 `self` fetch runs beside the message query (both within the query timeout); only
///   the channel pair waits for it, and without a relay key no channel record is trusted.
/// - Channel metadata and membership are fetched as two bounded requests but refreshed as a pair:
///   both are asked for when either is stale, shown as each arrives, and stored in one write.
/// - The first busy or locked answer from the cache switches it off for the rest of the wake; a
///   claim the cache cannot answer delivers without the once-guarantee rather than not at all.
/// - Avatar downloads for the same URL are shared within a process, not across processes.
/// - The outer deadline (``resolve(deadline:)``, by default query timeout + budget + 1 s) cancels
///   the wake's work; a claim still waiting for the cache's write lock then rolls back.
public struct NotificationResolver: Sendable {
  /// The slack on top of query timeout + budget within which every resolution ends.
  public static let deadlineSlack: Duration = .seconds(1)
  /// The most candidates tried for the delivery claim before giving up.
  public static let maxClaimAttempts = 64

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

  /// Resolves the wake within the default deadline: query timeout + budget + ``deadlineSlack``
  /// from now.
  public func resolve() async -> Resolution {
    await resolve(
      deadline: .now + configuration.queryTimeout + configuration.budget + Self.deadlineSlack)
  }

  /// Resolves the wake by `deadline`, the extension's own expiry: the outcome arrives by then,
  /// and the query and the enrichment budget are cut to fit it.
  ///
  /// When the deadline passes first, the wake's work is cancelled and the `timeout` fallback is
  /// returned — unless a message was already claimed, which is then presented from the message
  /// alone, so a claimed message is never lost. Cancelling the calling task (as
  /// `serviceExtensionTimeWillExpire` should) acts the same, at once.
  public func resolve(deadline: ContinuousClock.Instant) async -> Resolution {
    let started = ContinuousClock.now
    let chosen = ChosenInstant()
    let claims = ClaimGate()
    let raced = await DeadlineRace.value(by: deadline, cancelsOperation: true) {
      await run(started: started, deadline: deadline, chosen: chosen, claims: claims)
    }
    let (outcome, lingering) = raced ?? (afterDeadline(claims), .none)
    let finished = ContinuousClock.now
    return Resolution(
      outcome: outcome, elapsed: started.duration(to: finished),
      enrichmentElapsed: chosen.instant.map { $0.duration(to: finished) }, lingering: lingering)
  }

  /// The outcome when the outer deadline (or the caller's cancellation) won: the message claimed
  /// by then, composed from the message alone, so a recorded claim is always presented; else the
  /// `timeout` fallback, and no later claim can commit.
  private func afterDeadline(_ claims: ClaimGate) -> NotificationOutcome {
    guard let message = claims.close() else { return .fallback(.timeout) }
    let target = MessageTarget(eventID: message.id, tags: message.tags)
    let scope = StoreScope(account: configuration.account, relay: configuration.relay)
    return .resolved(compose(message, target: target, parts: EnrichedParts(), scope: scope, now: clock.now()))
  }

  /// One wake on one client; a WebSocket client is closed once the wake's lingering work ends.
  private func run(
    started: ContinuousClock.Instant, deadline: ContinuousClock.Instant, chosen: ChosenInstant,
    claims: ClaimGate
  ) async -> (NotificationOutcome, LingeringWork) {
    let client = RelayClient(
      origin: configuration.relay, key: configuration.secretKey, transport: configuration.transport,
      clock: clock, queryTransport: configuration.queryTransport)
    let (outcome, lingering) = await run(
      client: client, started: started, deadline: deadline, chosen: chosen, claims: claims)
    guard configuration.queryTransport == .websocket else { return (outcome, lingering) }
    let closing = Task {
      await lingering.wait()
      await client.close()
    }
    return (outcome, lingering.adding(closing))
  }

  private func run(
    client: RelayClient, started: ContinuousClock.Instant, deadline: ContinuousClock.Instant,
    chosen: ChosenInstant, claims: ClaimGate
  ) async -> (
    NotificationOutcome, LingeringWork
  ) {
    let account = configuration.account
    let now = clock.now()
    if let store, !store.registerAccount(account) { return (.fallback(.accountRemoved), .none) }
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
        configuration.filters, cap: RelayClient.messageQueryCap, deadline: queryDeadline)
    } catch {
      relayKeyTask.cancel()
      return (.fallback(error.reason), .none)
    }
    let candidates = MessageSelector.candidates(
      events, filters: configuration.filters, account: account, now: now)
    guard !candidates.isEmpty else {
      relayKeyTask.cancel()
      return (.fallback(.noEligibleEvent), .none)
    }
    let message: Event
    switch claim(candidates, account: account, now: now, gate: claims) {
    case .message(let chosen): message = chosen
    case .refused(let reason):
      relayKeyTask.cancel()
      return (.fallback(reason), .none)
    }
    let chosenAt = ContinuousClock.now
    chosen.instant = chosenAt
    let enrichDeadline = min(chosenAt + configuration.budget, deadline)
    let target = MessageTarget(eventID: message.id, tags: message.tags)
    let scope = StoreScope(account: account, relay: configuration.relay)
    let enrichment = EnrichmentRun(
      scope: scope, sender: message.pubkey, channelID: target.channelID,
      relayKey: { await relayKeyTask.value }, store: store,
      client: client,
      avatars: AvatarFetcher(
        relay: configuration.relay, key: configuration.secretKey, transport: configuration.transport,
        clock: clock),
      now: now, requestTimeout: configuration.queryTimeout)
    let (parts, lingering) = await enrichment.run(deadline: enrichDeadline)
    let notification = compose(message, target: target, parts: parts, scope: scope, now: now)
    return (.resolved(notification), lingering)
  }

  /// The first candidate this wake may present: claimed in the cache, or taken without the
  /// once-guarantee when the cache cannot answer; either way only while `gate` is still open.
  private func claim(_ candidates: [Event], account: String, now: Int64, gate: ClaimGate) -> Claim {
    guard let store else {
      return gate.admit(candidates[0]) ? .message(candidates[0]) : .refused(.timeout)
    }
    for candidate in candidates.prefix(Self.maxClaimAttempts) {
      switch store.claimDelivery(
        account: account, relay: configuration.relay, eventID: candidate.id, now: now,
        commitIf: { gate.admit(candidate) })
      {
      case .claimed: return .message(candidate)
      case .unavailable: return gate.admit(candidate) ? .message(candidate) : .refused(.timeout)
      case .alreadyDelivered: continue
      case .accountRemoved: return .refused(.accountRemoved)
      case .abandoned: return .refused(.timeout)
      }
    }
    return .refused(.alreadyDelivered)
  }

  /// What the claim step decided: the wake's message, or the fallback it must show instead.
  private enum Claim {
    case message(Event)
    case refused(FallbackReason)
  }

  private func compose(
    _ message: Event, target: MessageTarget, parts: EnrichedParts, scope: StoreScope, now: Int64
  ) -> ResolvedNotification {
    let name = parts.profile?.displayName.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
    let source: EnrichmentSource
    if name == nil {
      source = .none
    } else if parts.profileRefreshed {
      source = .refreshed
    } else {
      source = parts.profile?.isFresh == true ? .cacheFresh : .cacheStale
    }
    let title = NotificationTitle.title(displayName: name, compactNpub: KeyDisplay.compact(message.pubkey))
    let subtitle = NotificationSubtitle.subtitle(
      channelName: parts.channel?.name, channelType: parts.channel?.type, community: configuration.community)
    var recipientCount: Int? = nil
    if let membership = parts.membership, let channel = parts.channel, membership.signer == channel.signer {
      recipientCount = RecipientCount.count(
        memberCount: membership.memberCount, senderIsMember: membership.senderIsListed)
    }
    let store = self.store
    let mentions = MentionNames(limit: MentionNames.maxLookups) { pubkey in
      store?.profile(scope, pubkey: pubkey, now: now)?.displayName
    }
    let body = BodyPreview(renderMention: mentions.render).preview(of: message.content)
    var avatarFile: String? = nil
    if let avatar = parts.avatar, let directory = configuration.avatarDirectory {
      avatarFile = AvatarFile.write(avatar, in: directory)
    }
    return ResolvedNotification(
      title: title, subtitle: subtitle, body: body,
      threadIdentifier: ThreadIdentifier.make(
        account: scope.account, relay: scope.relay, channelID: target.channelID),
      target: target, senderPubkey: message.pubkey, senderNpub: KeyDisplay.npub(message.pubkey) ?? "",
      kind: message.kind, recipientCount: recipientCount, avatarFile: avatarFile, enrichment: source)
  }
}

/// The result of one wake: the outcome, how long it took, and the work still writing to the cache.
public struct Resolution: Sendable {
  /// The notification or the fallback.
  public var outcome: NotificationOutcome
  /// From the start of ``NotificationResolver/resolve()`` to the outcome.
  public var elapsed: Duration
  /// From choosing the message (the start of the enrichment budget) to the outcome; nil for a
  /// fallback decided before a message was chosen.
  public var enrichmentElapsed: Duration?
  /// Enrichment requests still running; await them to let their results reach the cache.
  public var lingering: LingeringWork
}

/// The moment the message was chosen, written by the resolving task and read when the outcome is
/// returned (possibly by the deadline guard while the resolving task still runs).
///
private final class ChosenInstant: Sendable {
  private let value = Locked<ContinuousClock.Instant?>(nil)

  var instant: ContinuousClock.Instant? {
    get { value.current }
    set { value.withLock { $0 = newValue } }
  }
}

/// Decides, once, between the wake's claim and its outer deadline.
///
/// The claim asks ``admit(_:)`` with the cache's write lock held, right before it commits; the
/// deadline calls ``close()``. Whichever comes first wins: a claim after the deadline is rolled
/// back (the next wake presents the message), and a claim before it is presented even when the
/// deadline cuts the enrichment short.
final class ClaimGate: Sendable {
  private enum State {
    case open
    case admitted(Event)
    case closed
  }

  private let state = Locked(State.open)

  /// Records `message` as the wake's message unless the deadline closed the gate (or another
  /// message was admitted); true when it is the wake's message.
  func admit(_ message: Event) -> Bool {
    state.withLock { state in
      switch state {
      case .open: state = .admitted(message)
      case .admitted(let earlier): return earlier.id == message.id
      case .closed: return false
      }
      return true
    }
  }

  /// Closes the gate for good; returns the message admitted before, if any.
  func close() -> Event? {
    state.withLock { state in
      if case .admitted(let message) = state { return message }
      state = .closed
      return nil
    }
  }
}
