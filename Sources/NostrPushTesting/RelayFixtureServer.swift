import Dispatch
import Foundation
import NostrEvent
import NostrPushCore
import NostrWebSocket
import PushDescriptor
import PushRelay

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real HTTP/1.1 relay on a loopback socket, serving a `RelayFixtureData` the way a NIP-PL relay
/// answers push clients: NIP-11 at `/`, NIP-98-authenticated `/query` and `/media/<name>`.
///
/// Tests, the demo and the benchmarks talk to it over real sockets. One thread serves every
/// connection with `poll()` over non-blocking sockets (at most `maxConnections` at once, the rest
/// wait in the backlog), so a slow or hostile client never stalls the others and a burst of
/// clients leaves no per-connection thread or memory behind. Call `stop()` when done: it closes
/// every socket and waits for the thread. While running, a test can change the data, inject
/// faults and read the request log:
/// ```swift
/// let server = RelayFixtureServer(
///   data: RelayFixtureData(nip11: document, events: [message, profile], media: ["avatar.png": png]),
///   configuration: RelayFixtureConfiguration(now: 1_767_226_200))
/// let origin = try await server.start()              // http://127.0.0.1:<free port>
/// server.setFaults([RelayFault(path: "/query", kind: 0, action: .delay(milliseconds: 2000))])
/// // … run the client …
/// #expect(server.requestCount(path: "/query", kind: 0) == 0)
/// await server.stop()
/// ```
/// Each phase of a connection has a deadline (request, idle and write timeouts; a delay fault's
/// end), and a stop pipe is polled with the sockets, so a deadline or `stop()` acts at once.
public final class RelayFixtureServer: Sendable {
  /// The stack size of the serving thread (1 MiB): enough for the bounded JSON reader.
  package static let threadStackBytes = 1024 * 1024
  /// The listen backlog: connections waiting for a free slot queue here.
  package static let listenBacklog: Int32 = 1024
  private struct State {
    var nip11: [UInt8]?
    var store: EventStore
    var media: [String: [UInt8]]
    var faults: [(fault: RelayFault, remaining: Int?)]
    var log: [RelayRequestRecord] = []
    /// The fixed clock in Unix milliseconds; nil reads the system clock.
    var nowMilliseconds: Int64?
    var authorOnlyKinds: Set<Int>
    var push: FixturePush?
  }

  private struct FaultPlan {
    var delayMilliseconds = 0
    var action: RelayFault.Action?
    var name: String?
  }

  /// The configuration the server was created with.
  public let configuration: RelayFixtureConfiguration
  /// The lines of `events.jsonl` that were skipped when the data was loaded.
  package let problems: [RelayFixtureData.Problem]
  private let state: Locked<State>
  private let verifier = NIP98Verifier()
  private let host = LoopbackServerHost()
  private let connectionCount = Locked(0)
  private let subscriptionCount = Locked(0)
  /// Events `add(_:)` stored while running, for the loop to send to open subscriptions, and the
  /// pipe that wakes it for them.
  private let pendingBroadcasts = Locked<(entries: [RelayFixtureData.Entry], notify: Int32?)>(([], nil))

  /// Creates a server for `data` (events, NIP-11 document, media, faults); nothing is bound until
  /// `start()`, which picks a free port when the configuration's port is 0.
  public init(data: RelayFixtureData, configuration: RelayFixtureConfiguration = RelayFixtureConfiguration())
  {
    self.configuration = configuration
    self.problems = data.problems
    self.state = Locked(
      State(
        nip11: data.nip11, store: EventStore(data.entries), media: data.media,
        faults: data.faults.map { ($0, $0.times) }, nowMilliseconds: configuration.now.map { $0 * 1000 },
        authorOnlyKinds: data.authRequiredKinds.union([WebSocketRelay.leaseKind])))
  }

  /// Binds the configured loopback address, starts accepting, and returns the base URL
  /// (`http://127.0.0.1:<port>`).
  ///
  /// Throws `nonLoopbackHost`/`invalidHost` for any address that is not loopback, `addressInUse`
  /// when the port is taken, and `invalidState` when called twice. In push mode also
  /// `ipv4LoopbackOnly` for `::1`, `invalidData` (field `nip11.json`) without a valid push
  /// descriptor or (field `gateway`) for a gateway URL `GatewayClient` refuses, and `unreadable`
  /// (field `state`) for a state file SQLite cannot open.
  @discardableResult
  public func start() async throws(RelayFixtureError) -> URL {
    let address = try LoopbackAddress(host: configuration.host)
    if configuration.push != nil, case .ipv6 = address.storage {
      throw RelayFixtureError(
        code: .ipv4LoopbackOnly, field: "host",
        message:
          "push mode binds IPv4 loopback only (127.0.0.0/8): FoundationNetworking on Linux cannot fetch a URL with an IPv6 literal"
      )
    }
    if let name = configuration.publicHost {
      guard let origin = try? RelayOrigin("http://\(name)"), origin.isLoopback, origin.host == name else {
        throw RelayFixtureError(
          code: .nonLoopbackHost, field: "public_host",
          message: "\(name) is not a lower-case loopback name (localhost or *.localhost)")
      }
    }
    let origin = try host.start(
      address: address, configuration: configuration, originHost: configuration.publicHost,
      prepare: { [self] origin throws(RelayFixtureError) in
        if let mode = configuration.push {
          try startPush(mode, webSocketOrigin: origin.webSocketURL)
        }
      },
      serve: { [self] listener, stopPipe, origin in
        let loop = ConnectionLoop(
          listener: listener, stopPipe: stopPipe, configuration: configuration,
          respond: { [self] request in respond(to: request, origin: origin) },
          recordRejection: { [self] status in record(RelayRequestRecord(method: "", path: "", status: status))
          },
          reportCount: { [self] count in connectionCount.withLock { $0 = count } },
          webSocketMessage: { [self] message, session in
            var outcome = webSocketRelay(origin: origin).handle(message, session: &session)
            guard let request = outcome.request else { return outcome }
            let plan = takeFaults(path: "ws", kinds: request.kinds)
            outcome.fault = plan.action
            outcome.delay = .milliseconds(plan.delayMilliseconds)
            record(
              RelayRequestRecord(
                method: request.type, path: "ws", kinds: request.kinds.sorted(), filters: request.filters,
                authorizedPubkey: session.identity, status: plan.action == nil ? 200 : 0, fault: plan.name))
            return outcome
          },
          reportSubscriptions: { [self] count in subscriptionCount.withLock { $0 = count } })
        let authorOnlyKinds = state.withLock { $0.authorOnlyKinds }
        loop.authorOnly = { authorOnlyKinds.contains($0) }
        let notify = PosixSocket.makePipe(nonBlocking: true)
        if let notify {
          loop.notifyPipe = notify.read
          pendingBroadcasts.withLock { $0.notify = notify.write }
        }
        loop.takeBroadcasts = { [self] in
          pendingBroadcasts.withLock { pending in
            defer { pending.entries = [] }
            return pending.entries
          }
        }
        loop.run()
        pendingBroadcasts.withLock { $0 = ([], nil) }
        if let notify {
          close(notify.read)
          close(notify.write)
        }
      })
    return URL(string: origin.description)!
  }

  /// Stops accepting, closes every connection, and returns once the serving thread has ended.
  ///
  /// Safe to call more than once and on a server that never started.
  public func stop() async {
    await host.stop()
    if let push = state.withLock({ state in
      defer { state.push = nil }
      return state.push
    }) {
      await push.stop()
    }
  }

  /// Builds the push half: the rewritten descriptor served from now on, the state file, the
  /// worker; rosters come from this fixture's stored kind 39002 events.
  private func startPush(_ mode: RelayFixturePushMode, webSocketOrigin: String) throws(RelayFixtureError) {
    let nip11 = state.withLock { $0.nip11 }
    let selfPubkey = nip11.flatMap { try? RelayInformation(lenientJSON: $0) }?.selfPubkey
    let roster = FixtureRoster(selfPubkey: selfPubkey, events: { [state] in state.withLock { $0.store } })
    let clock = UnixClock { [state] in
      state.withLock { $0.nowMilliseconds } ?? UnixClock.system.nowMilliseconds()
    }
    let push = try FixturePush(
      mode: mode, nip11: nip11, webSocketOrigin: webSocketOrigin, roster: roster, clock: clock)
    state.withLock { state in
      state.nip11 = push.document
      state.push = push
    }
  }

  // MARK: Push mode

  /// The descriptor push mode serves and judges leases with (`push.origin` the fixture's
  /// `ws://<host>:<port>`, the current key the push key), nil before start or without push mode.
  public var pushDescriptor: PushDescriptor? {
    state.withLock { $0.push?.descriptor }
  }

  /// Every wake outbox row, oldest first (request_id, event_id, state, attempts and the rest);
  /// empty without push mode. For tests and the demo.
  public func wakes() throws(PushRelayError) -> [Wake] {
    guard let push = state.withLock({ $0.push }) else { return [] }
    return try push.wakes()
  }

  /// The lease store of push mode (nil without it), for tests that inspect lease rows.
  package var leaseStore: SQLiteLeaseStore? {
    state.withLock { $0.push?.store as? SQLiteLeaseStore }
  }

  /// Moves a fixed clock (`now`, `setNow`) forward by `duration`: NIP-98, event timestamps, lease
  /// expiry and the delivery worker's backoff all read it, and the worker is woken to claim what
  /// became due. Without a fixed clock it does nothing, since the system clock cannot be moved.
  public func advanceClock(by duration: Duration) {
    let delta = duration.wholeMilliseconds
    let push = state.withLock { state in
      if let now = state.nowMilliseconds { state.nowMilliseconds = now + delta }
      return state.push
    }
    // A retry whose backoff has now passed is due: the worker claims at once, not at its
    // fallback timer.
    push?.relay.wakeWorker()
  }

  /// The base URL while running (`http://127.0.0.1:<port>`), else nil.
  public var baseURL: URL? {
    origin.flatMap { URL(string: $0) }
  }

  /// The HTTP origin while running (`http://127.0.0.1:<port>`, `http://[::1]:<port>`), else nil;
  /// NIP-98 `u` tags are checked against it. The string form of ``relayOrigin``.
  public var origin: String? { host.origin?.description }

  /// The relay's origin while running, else nil: `description` is the HTTP origin (``origin``),
  /// `webSocketURL` the `ws://<host>:<port>` clients connect to.
  public var relayOrigin: RelayOrigin? { host.origin }

  /// The number of connections being served right now: a client's test checks it to see that
  /// the client closed (or reused) its connections.
  public var activeConnections: Int { connectionCount.withLock { $0 } }

  /// The number of WebSocket subscriptions open right now, over every connection.
  public var openSubscriptions: Int { subscriptionCount.withLock { $0 } }

  // MARK: Changing the scenario at run time

  /// Replaces every fault (pass `[]` to clear them).
  public func setFaults(_ faults: [RelayFault]) {
    state.withLock { $0.faults = faults.map { ($0, $0.times) } }
  }

  /// Adds one fault after the existing ones.
  public func addFault(_ fault: RelayFault) {
    state.withLock { $0.faults.append((fault, fault.times)) }
  }

  /// Adds events to those served (an id already served is ignored); while running, the open
  /// WebSocket subscriptions they match receive them at once.
  ///
  /// Throws `invalidData` (field `events[<index>]`, message `leases arrive only through ingest`)
  /// for a kind 30350 event, and then adds none of them: leases enter only through the push
  /// ingest path (`POST /events` or `EVENT` in push mode), as `Docs/TestingWithRelayFixture.md` says.
  public func add(_ events: [Event]) throws(RelayFixtureError) {
    if let index = events.firstIndex(where: { $0.kind == WebSocketRelay.leaseKind }) {
      throw RelayFixtureError(
        code: .invalidData, field: "events[\(index)]", message: "leases arrive only through ingest")
    }
    let added = state.withLock { state in
      events.compactMap { event -> RelayFixtureData.Entry? in
        guard !state.store.contains(id: event.id) else { return nil }
        let entry = RelayFixtureData.Entry(event: event, json: event.jsonBytes())
        state.store.insert(entry)
        return entry
      }
    }
    guard !added.isEmpty else { return }
    pendingBroadcasts.withLock { pending in
      guard let notify = pending.notify else { return }
      pending.entries += added
      var byte: UInt8 = 1
      _ = write(notify, &byte, 1)
    }
  }

  /// Replaces every served event while running: a test changes what the relay holds between
  /// two calls of the client.
  package func setEvents(_ events: [Event]) {
    let entries = events.map { RelayFixtureData.Entry(event: $0, json: $0.jsonBytes()) }
    state.withLock { $0.store = EventStore(entries) }
  }

  /// Serves `bytes` as `/media/<name>`, or removes the file when `bytes` is nil.
  package func setMedia(_ bytes: [UInt8]?, named name: String) {
    state.withLock { $0.media[name] = bytes }
  }

  /// Replaces the NIP-11 document (nil answers 404).
  package func setInformationDocument(_ bytes: [UInt8]?) {
    state.withLock { $0.nip11 = bytes }
  }

  /// The relay's clock in Unix seconds: the fixed one (`now`, `setNow`, `advanceClock(by:)`), else
  /// the system's; tests share it with the gateway fixture and the resolver.
  public var now: Int64 { state.withLock { Self.seconds($0) } }

  /// Fixes the relay's clock for NIP-98 checks (UNIX seconds); nil returns to the system clock.
  public func setNow(_ now: Int64?) {
    state.withLock { $0.nowMilliseconds = now.map { $0 * 1000 } }
  }

  /// The fixture's clock in Unix seconds: the fixed one (floor), else the system's.
  private static func seconds(_ state: State) -> Int64 {
    guard let milliseconds = state.nowMilliseconds else { return Int64(Date().timeIntervalSince1970) }
    return UnixClock.seconds(milliseconds)
  }

  // MARK: The request log

  /// Every request answered so far (the newest `configuration.requestLogCapacity`), oldest first.
  public func requests() -> [RelayRequestRecord] {
    state.withLock { $0.log }
  }

  /// How many logged requests were for `path`, and, when `kind` is given, asked for that kind.
  public func requestCount(path: String, kind: Int? = nil) -> Int {
    state.withLock { state in
      state.log.reduce(0) { count, record in
        guard record.path == path else { return count }
        if let kind, !record.kinds.contains(kind) { return count }
        return count + 1
      }
    }
  }

  /// Empties the request log, so a test can assert on the requests of one phase alone.
  package func resetRequestLog() {
    state.withLock { $0.log.removeAll() }
  }

  // MARK: Serving

  /// Routes `request`, applies the faults that match it, logs it, and returns the bytes to send
  /// with the delay to hold them for.
  private func respond(to request: HTTPRequest, origin: RelayOrigin) -> (
    response: OutboundResponse, delay: Duration
  ) {
    let routed = router(origin: origin).route(request)
    let plan = takeFaults(path: request.path, kinds: routed.kinds)
    if let accept = routed.upgradeAccept, plan.action == nil {
      record(RelayRequestRecord(method: request.method, path: request.path, status: 101, fault: plan.name))
      return (.switchingProtocols(accept: accept), .milliseconds(plan.delayMilliseconds))
    }
    let status: Int
    switch plan.action {
    case .status(let code): status = code
    case .body(let code, _, _): status = code
    case .notJSON, .oversizedBody: status = 200
    case .closeConnection: status = 0
    case nil, .delay, .truncatedBody: status = routed.response.status
    }
    record(
      RelayRequestRecord(
        method: request.method, path: request.path, kinds: routed.kinds.sorted(), filters: routed.filters,
        hadAuthorization: request.header("authorization") != nil, authorizedPubkey: routed.authorizedPubkey,
        status: status, fault: plan.name))
    var response = OutboundResponse(routed.response, action: plan.action, keepAlive: request.keepAlive)
    response.broadcast = routed.broadcast
    return (response, .milliseconds(plan.delayMilliseconds))
  }

  private func router(origin: RelayOrigin) -> RelayRouter {
    state.withLock { state in
      RelayRouter(
        origin: origin, nip11: state.nip11, store: state.store, media: state.media,
        mediaRequiresAuthorization: configuration.mediaRequiresAuthorization,
        verifier: state.push?.verifier ?? verifier,
        now: Self.seconds(state), authorOnlyKinds: state.authorOnlyKinds,
        save: { [self] entry in store(entry) }, push: state.push)
    }
  }

  /// The NIP-01 rules over the current store, for one WebSocket message.
  private func webSocketRelay(origin: RelayOrigin) -> WebSocketRelay {
    state.withLock { state in
      WebSocketRelay(
        webSocketURL: origin.webSocketURL, authorOnlyKinds: state.authorOnlyKinds,
        now: Self.seconds(state), store: state.store,
        save: { [self] entry in store(entry) }, push: state.push)
    }
  }

  /// Stores `entry` in the live store under §5's rules 8 and 9.
  private func store(_ entry: RelayFixtureData.Entry) -> StoreResult {
    state.withLock { state in
      if state.store.contains(id: entry.event.id) { return .duplicate }
      return state.store.store(entry) ? .stored : .stale
    }
  }

  private func takeFaults(path: String, kinds: Set<Int>) -> FaultPlan {
    state.withLock { state in
      var plan = FaultPlan()
      for index in state.faults.indices {
        let (fault, remaining) = state.faults[index]
        guard remaining ?? 1 > 0, fault.matches(path: path, kinds: kinds) else { continue }
        if case .delay(let milliseconds) = fault.action {
          plan.delayMilliseconds += milliseconds
          plan.name = plan.name ?? "delay"
        } else if plan.action == nil {
          plan.action = fault.action
          plan.name = Self.name(of: fault.action)
        } else {
          continue
        }
        if let remaining { state.faults[index].remaining = remaining - 1 }
      }
      return plan
    }
  }

  private func record(_ record: RelayRequestRecord) {
    let capacity = configuration.requestLogCapacity
    guard capacity > 0 else { return }
    state.withLock { state in
      if state.log.count >= capacity { state.log.removeFirst(max(1, capacity / 10)) }
      state.log.append(record)
    }
  }

  private static func name(of action: RelayFault.Action) -> String {
    switch action {
    case .delay: "delay"
    case .status: "status"
    case .oversizedBody: "oversized_body"
    case .truncatedBody: "truncated_body"
    case .notJSON: "not_json"
    case .closeConnection: "close"
    case .body: "body"
    }
  }
}
