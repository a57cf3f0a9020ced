import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrWebSocket
import PushDescriptor
import PushRelay

/// Follows one upstream relay: keeps the REQs of the current ``UpstreamPlan`` open, hands every
/// event to ``ServiceIngest`` and keeps a durable cursor so that nothing is missed across
/// reconnects or restarts.
///
/// - Limits come from the relay's NIP-11 `limitation` (fetched before each connection; defaults
///   when it cannot be read).
/// - On connect each REQ carries `since` = cursor − ``sinceSlack`` (kind 1059 filters a further
///   ``giftWrapBackdate``, since NIP-59 backdates wraps and relays apply `since` to live events);
///   events seen before are dropped by id in ingest.
/// - Each filter carries `limit` = the relay's `max_limit` (relays cap stored answers, often at
///   100 by default): a REQ whose stored answer fills it is followed by the next older page
///   (`until` = the oldest `created_at` seen, one second less when a page did not move it), under
///   a page id `<id>-<n>` that is closed at its `EOSE`. NIP-01 has no cursor within a second:
///   when more than `max_limit` matching events share one `created_at`, those past the limit in
///   that second are not fetched (a known limit of paging by `until`).
/// - The cursor moves to now only while every open REQ and page has had its `EOSE` and no
///   received message waits for ingest, so a crash never moves it past an event it did not ingest.
/// - A lease change (``planChanged()``) or the 1 s tick reads the live leases, and recomputes the
///   plan when that read is a new one; only subscriptions whose filters changed are closed or
///   opened.
/// - Reconnects back off exponentially (``minBackoff`` doubling to ``maxBackoff``, with jitter).
///   Invalid messages and events are counted and dropped; a storage failure ends the connection so
///   the reconnect's `since` sends the event again.
final class UpstreamSubscriber: Sendable {
  /// Slack subtracted from the cursor on every REQ.
  static let sinceSlack: Int64 = 120
  /// The further slack of a gift wrap filter (NIP-59's two days).
  static let giftWrapBackdate: Int64 = 172_800
  /// The first reconnect delay.
  static let minBackoff: Duration = .milliseconds(250)
  /// The longest reconnect delay.
  static let maxBackoff: Duration = .seconds(30)
  /// How often the plan is recomputed and the cursor saved without a signal.
  static let tick: Duration = .seconds(1)
  /// How long connecting (and fetching NIP-11) may take.
  static let connectTimeout: Duration = .seconds(5)

  let upstream: PushServiceConfiguration.Upstream
  private let key: SecretKey
  private let store: any ServiceEventStore
  private let ingest: ServiceIngest
  /// The live leases and the generation of their read (``LiveLeaseCache/versionedLeases()``).
  private let leases: @Sendable () -> (generation: UInt64, leases: [StoredLease])
  private let metrics: ServiceMetrics
  private let clock: UnixClock
  private let roster: ServiceRoster
  private let signal = Locked<CheckedContinuation<Void, Never>?>(nil)
  private let pendingSignal = Locked(false)
  private let task = Locked<Task<Void, Never>?>(nil)

  init(
    upstream: PushServiceConfiguration.Upstream, key: SecretKey, store: any ServiceEventStore,
    ingest: ServiceIngest,
    leases: @escaping @Sendable () -> (generation: UInt64, leases: [StoredLease]), metrics: ServiceMetrics,
    clock: UnixClock,
    roster: ServiceRoster
  ) {
    self.upstream = upstream
    self.key = key
    self.store = store
    self.ingest = ingest
    self.leases = leases
    self.metrics = metrics
    self.clock = clock
    self.roster = roster
  }

  /// Starts following the upstream.
  func start() {
    task.withLock { $0 = Task { await self.run() } }
  }

  /// Stops, closing the connection.
  func stop() async {
    let running = task.withLock { task in
      defer { task = nil }
      return task
    }
    running?.cancel()
    await running?.value
  }

  /// Asks for the plan to be recomputed now (a lease was accepted or revoked).
  func planChanged() {
    let waiting = signal.withLock { waiting in
      defer { waiting = nil }
      return waiting
    }
    if let waiting { waiting.resume() } else { pendingSignal.withLock { $0 = true } }
  }

  private func waitForSignal(upTo duration: Duration) async {
    if pendingSignal.withLock({ flag in
      defer { flag = false }
      return flag
    }) {
      return
    }
    _ = await DeadlineRace.value(by: .now + duration) { [signal] in
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        signal.withLock { $0 = continuation }
      }
    }
    signal.withLock { waiting in
      waiting?.resume()
      waiting = nil
    }
  }

  // MARK: The connection loop

  private func run() async {
    var attempt = 0
    while !Task.isCancelled {
      let limits = await fetchLimits()
      if let url = try? WebSocketURL(upstream.url),
        let transport = try? await openWebSocket(to: url, deadline: .now + Self.connectTimeout)
      {
        attempt = 0
        metrics.upstream(upstream.url, connected: true)
        let now = clock.now()
        let cursor = await BlockingWork.run { [store, upstream] in
          (try? store.cursor(upstream: upstream.url)) ?? nil
        }
        let since = cursor.map { min($0, now) } ?? now
        await Session(owner: self, transport: transport, limits: limits, connectSince: since).run()
        await transport.close()
        metrics.upstream(upstream.url, connected: false)
        metrics.upstream(upstream.url, subscriptions: 0)
      }
      if Task.isCancelled { return }
      attempt += 1
      let exponent = min(attempt - 1, 10)
      let base = min(Self.minBackoff * (1 << exponent), Self.maxBackoff)
      let jittered = base * Double.random(in: 0.5...1.0)
      try? await Task.sleep(for: jittered)
    }
  }

  private func fetchLimits() async -> UpstreamLimits {
    guard
      let bytes = try? await PushDiscovery().fetchDocument(
        relay: upstream.url, deadline: .now + Self.connectTimeout),
      let information = try? RelayInformation(lenientJSON: bytes)
    else { return UpstreamLimits() }
    if let selfKey = information.selfPubkey { roster.trust(selfKey) }
    return UpstreamLimits(limitation: information.limitation)
  }

  /// One connection's state, owned by its tasks.
  private final class Session: Sendable {
    private struct State {
      var open: [String: UpstreamPlan.Subscription] = [:]
      var awaitingEOSE: Set<String> = []
      var refusedForAuth: Set<String> = []
      /// Stored-event pages in flight, by subscription or page id.
      var pages: [String: Page] = [:]
      var authEventID: String?
      var busy = false
      var ended = false
    }

    /// One stored-event answer being counted: whose filters, from when, how many so far.
    private struct Page {
      var subscription: UpstreamPlan.Subscription
      var since: Int64
      var until: Int64?
      var number: Int
      var count = 0
      var oldest: Int64?
    }

    let owner: UpstreamSubscriber
    let transport: any WebSocketTransport
    let limits: UpstreamLimits
    private let state = Locked(State())
    private let outbox: AsyncStream<[UInt8]>.Continuation
    private let stream: AsyncStream<[UInt8]>
    private let connectSince: Int64

    /// A session from the durable cursor `connectSince` (read by the caller off the pool).
    init(
      owner: UpstreamSubscriber, transport: any WebSocketTransport, limits: UpstreamLimits,
      connectSince: Int64
    ) {
      self.owner = owner
      self.transport = transport
      self.limits = limits
      (stream, outbox) = AsyncStream<[UInt8]>.makeStream()
      self.connectSince = connectSince
    }

    func run() async {
      await withTaskGroup(of: Void.self) { group in
        group.addTask { await self.write() }
        group.addTask { await self.read() }
        group.addTask { await self.plan() }
        _ = await group.next()
        state.withLock { $0.ended = true }
        outbox.finish()
        group.cancelAll()
      }
    }

    private func write() async {
      for await message in stream {
        do throws(RelayConnectionError) {
          try await transport.send(message)
        } catch {
          return
        }
      }
    }

    private func read() async {
      while !Task.isCancelled {
        let message: [UInt8]
        do throws(RelayConnectionError) {
          message = try await transport.receive()
        } catch {
          return
        }
        state.withLock { $0.busy = true }
        defer { state.withLock { $0.busy = false } }
        guard let parsed = RelayMessage.parse(message) else {
          owner.metrics.upstreamInvalid(owner.upstream.url)
          continue
        }
        switch parsed {
        case .event(let subscription, let value):
          let known = state.withLock { state -> Bool in
            if var page = state.pages[subscription] {
              page.count += 1
              if let createdAt = value.objectValue?["created_at"]?.integerValue {
                page.oldest = min(page.oldest ?? createdAt, createdAt)
              }
              state.pages[subscription] = page
              return true
            }
            return state.open[subscription] != nil
          }
          guard known else { continue }
          let ingest = owner.ingest
          let size = message.count
          let outcome = await BlockingWork.run { ingest.ingest(value, size: size, source: .upstream) }
          if outcome.result == .rejected { owner.metrics.upstreamInvalid(owner.upstream.url) }
          if outcome.result == .failed { return }
        case .endOfStoredEvents(let subscription):
          endOfStoredEvents(subscription)
        case .closed(let subscription, let text):
          state.withLock { state in
            state.awaitingEOSE.remove(subscription)
            if text.hasPrefix("auth-required:"), owner.upstream.auth {
              state.refusedForAuth.insert(subscription)
            }
          }
        case .auth(let challenge):
          guard owner.upstream.auth, challenge.utf8.count <= RelayConnection.maxChallengeBytes,
            let event = RelayConnection.authenticationEvent(
              challenge: challenge, relay: owner.upstream.url, key: owner.key, createdAt: owner.clock.now())
          else { continue }
          state.withLock { $0.authEventID = event.id }
          outbox.yield(JSONWriter.bytes(.array([.string("AUTH"), event.jsonValue])))
        case .ok(let id, let accepted, _):
          let resend: [UpstreamPlan.Subscription] = state.withLock { state in
            guard accepted, id == state.authEventID else { return [] }
            defer { state.refusedForAuth = [] }
            return state.refusedForAuth.compactMap { state.open[$0] }
          }
          for subscription in resend { send(subscription, since: connectSince) }
        case .notice:
          continue
        }
      }
    }

    private func plan() async {
      var first = true
      // The plan of the last generation of leases read: planning 100 000 leases every tick cost
      // a tenth of a core while nothing changed.
      var planned: (generation: UInt64, plan: UpstreamPlan)?
      while !Task.isCancelled {
        let (generation, leases) = await BlockingWork.run { [owner] in owner.leases() }
        let plan: UpstreamPlan
        if let planned, planned.generation == generation {
          plan = planned.plan
        } else {
          plan = UpstreamPlan(leases: leases, limits: limits)
          planned = (generation, plan)
        }
        let wanted = Dictionary(uniqueKeysWithValues: plan.subscriptions.map { ($0.id, $0) })
        let (closing, opening) = state.withLock { state -> ([String], [UpstreamPlan.Subscription]) in
          let closing = state.open.keys.filter { wanted[$0] == nil }.sorted()
          let opening = plan.subscriptions.filter { state.open[$0.id] == nil }
          for id in closing {
            state.open[id] = nil
            state.awaitingEOSE.remove(id)
          }
          for subscription in opening {
            state.open[subscription.id] = subscription
            state.awaitingEOSE.insert(subscription.id)
          }
          return (closing, opening)
        }
        for id in closing { outbox.yield(JSONWriter.bytes(.array([.string("CLOSE"), .string(id)]))) }
        let since = first ? connectSince : owner.clock.now()
        for subscription in opening { send(subscription, since: since) }
        first = false
        owner.metrics.upstream(owner.upstream.url, subscriptions: wanted.count)
        let now = owner.clock.now()
        let caughtUp = state.withLock { $0.awaitingEOSE.isEmpty && !$0.busy && !$0.ended }
        if caughtUp {
          let store = owner.store
          let url = owner.upstream.url
          _ = try? await BlockingWork.run { () throws(PushServiceError) in
            try store.advanceCursor(upstream: url, to: now)
          }
        }
        await owner.waitForSignal(upTo: UpstreamSubscriber.tick)
      }
    }

    /// Sends the REQ of `subscription` with `since` derived from `cursor`, counting its stored
    /// answer as page 0.
    private func send(_ subscription: UpstreamPlan.Subscription, since cursor: Int64) {
      state.withLock { state in
        state.pages[subscription.id] = Page(subscription: subscription, since: cursor, until: nil, number: 0)
      }
      request(subscription.id, subscription, since: cursor, until: nil)
    }

    private func request(
      _ id: String, _ subscription: UpstreamPlan.Subscription, since cursor: Int64, until: Int64?
    ) {
      let filters = subscription.filters.map { filter -> JSONValue in
        var copy = filter
        let giftWrap = filter.kinds?.contains(EventKind.giftWrap) ?? false
        copy.since =
          cursor - UpstreamSubscriber.sinceSlack - (giftWrap ? UpstreamSubscriber.giftWrapBackdate : 0)
        copy.until = until
        copy.limit = limits.maxLimit
        return copy.jsonValue
      }
      outbox.yield(JSONWriter.bytes(.array([.string("REQ"), .string(id)] + filters)))
    }

    /// The end of a stored answer: a full page asks for the next older one; a page's own
    /// subscription is closed; the subscription is caught up once its last page ended.
    private func endOfStoredEvents(_ id: String) {
      let next: (String, Page)? = state.withLock { state in
        guard let page = state.pages.removeValue(forKey: id) else {
          state.awaitingEOSE.remove(id)
          return nil
        }
        let base = page.subscription.id
        guard state.open[base] != nil, page.count >= limits.maxLimit, let oldest = page.oldest else {
          state.awaitingEOSE.remove(base)
          return nil
        }
        var following = page
        following.number += 1
        following.until = page.until == oldest ? oldest - 1 : oldest
        following.count = 0
        following.oldest = nil
        let pageID = "\(base)-\(following.number)"
        state.pages[pageID] = following
        return (pageID, following)
      }
      if id.contains("-") { outbox.yield(JSONWriter.bytes(.array([.string("CLOSE"), .string(id)]))) }
      if let (pageID, page) = next {
        request(pageID, page.subscription, since: page.since, until: page.until)
      }
    }
  }
}
