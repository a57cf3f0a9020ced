import Foundation
import NostrEvent
import NostrHTTPServer
import NostrJSON
import NostrPushCore
import PushDescriptor
import PushLease
import PushRelay

/// The production push relay service (`nostr-push relay --config FILE`): a NIP-PL relay of its
/// own whose events come from other relays.
///
/// - Client listener (`listen`): `GET /` serves NIP-11 with the push descriptor (to
///   `Accept: application/nostr+json`) and takes WebSocket upgrades (``ClientSession``: NIP-42,
///   leases, the author's own leases; any other event `blocked: push relay: publish to <upstream>`);
///   `POST /query` answers NIP-98 requests by accounts that hold a live lease here.
/// - Admin listener (`admin_listen`): the trusted feeds (`/` as a `strfry router`-shaped WebSocket
///   feed, `POST /events` as JSON lines), `/_liveness`, `/_readiness`, `/metrics`.
/// - One ``UpstreamSubscriber`` per upstream, the delivery worker, and an hourly retention sweep.
///
/// Threading (the spec's "the serving loop never runs a scan or a disk write on the thread that
/// accepts and reads sockets"): each listener's one libmicrohttpd thread accepts, reads request
/// heads and bodies, and only routes, suspends the connection and starts the handler's task
/// (`NostrHTTPServer`'s `ServerCore`); each upgraded WebSocket's reader thread only decodes
/// frames, answers pings and hands messages over (`HTTPServerWebSocket`). Handlers and sessions
/// run as Swift tasks, and every store call they make — lease ingest and reads
/// (``ClientSession``), `/query`'s reads (`ServiceQuery`), feed ingest (`TrustedFeeds`), upstream
/// ingest and cursors (``UpstreamSubscriber``), readiness and metrics — goes through
/// `BlockingWork`, a thread outside the socket threads and the cooperative pool. NIP-11 is a
/// document built once at start. So a store waiting on its lock or its disk delays only the
/// request that waits for it (`PushServiceStalledStoreTests`).
///
/// Decisions where the spec is silent (written here as the brief asks): push key ids are
/// `k-` + the first 16 hex of each key's pubkey, the first key current and the others retiring;
/// the SQLite store keeps leases and wakes in the configured file and events in `<file>.events`
/// (PostgreSQL: ``ServiceStores``);
/// `/query` unites the events stored here with the upstreams' answers (``ServiceQuery``).
public final class PushService: Sendable {
  /// The client listener's port.
  public let port: UInt16
  /// The admin listener's port.
  public let adminPort: UInt16
  /// The service key's public key (64 hex).
  public let pubkey: String
  /// The counters behind `/metrics`.
  public let metrics: ServiceMetrics
  /// The event store.
  public let events: any ServiceEventStore
  /// The relay's push side (lease store, outbox, worker).
  public let relay: PushRelay
  /// The served NIP-11 document.
  public let document: [UInt8]
  /// The one ingest every source feeds (what an upstream subscriber calls for each `EVENT`): the
  /// benchmark's ingest row drives it directly.
  package let ingest: ServiceIngest

  private let server: HTTPServer
  private let admin: HTTPServer
  private let upstreams: [UpstreamSubscriber]
  private let tasks: Locked<[Task<Void, Never>]>
  private let stores: ServiceStores

  private init(
    port: UInt16, adminPort: UInt16, pubkey: String, metrics: ServiceMetrics, events: any ServiceEventStore,
    relay: PushRelay, document: [UInt8], ingest: ServiceIngest, server: HTTPServer, admin: HTTPServer,
    upstreams: [UpstreamSubscriber],
    tasks: [Task<Void, Never>], stores: ServiceStores
  ) {
    self.stores = stores
    self.port = port
    self.adminPort = adminPort
    self.pubkey = pubkey
    self.metrics = metrics
    self.events = events
    self.relay = relay
    self.document = document
    self.ingest = ingest
    self.server = server
    self.admin = admin
    self.upstreams = upstreams
    self.tasks = Locked(tasks)
  }

  /// The first line `nostr-push relay --config` prints:
  /// `{"listening":"HOST:PORT","admin":"HOST:PORT","pubkey":"<hex>"}`.
  public func listeningLine(host: String, adminHost: String) -> String {
    JSONWriter.string(
      .object(
        JSONObject([
          "listening": .string("\(host):\(port)"), "admin": .string("\(adminHost):\(adminPort)"),
          "pubkey": .string(pubkey),
        ])))
  }

  /// The id a push key gets in the descriptor: `k-` + the first 16 hex of its pubkey.
  public static func keyID(_ key: SecretKey) -> String { "k-" + key.publicKeyHex.prefix(16) }

  /// Starts the service: opens the stores, builds and validates the descriptor, starts both
  /// listeners, the upstream subscribers and the delivery worker.
  public static func start(_ configuration: PushServiceConfiguration, clock: UnixClock = .system)
    async throws(PushServiceError) -> PushService
  {
    let (descriptor, document) = try Self.document(configuration)
    var keys: [String: SecretKey] = [:]
    for key in configuration.pushKeys { keys[keyID(key)] = key }
    let validator: LeaseValidator
    do {
      validator = try LeaseValidator(descriptor: descriptor, pushKeys: keys)
    } catch {
      throw PushServiceError(code: .invalidConfiguration, field: "push_key_files", message: error.message)
    }
    var gateway: GatewayClient?
    if let url = configuration.gateway {
      do {
        gateway = try GatewayClient(baseURL: url)
      } catch {
        throw PushServiceError(code: .invalidConfiguration, field: "gateway", message: error.message)
      }
    }
    let stores = try ServiceStores(configuration)
    let events = stores.events
    let roster = ServiceRoster(store: events)
    let relay: PushRelay
    do {
      relay = try PushRelay(
        validator: validator, store: stores.leases, outbox: stores.outbox, descriptor: descriptor,
        roster: roster, gateway: gateway, clock: clock, wakeSignal: stores.wakeSignal)
    } catch {
      throw PushServiceError(code: .invalidConfiguration, field: "descriptor", message: error.message)
    }
    let metrics = ServiceMetrics()
    let leases = LiveLeaseCache(relay: relay, clock: clock)
    let ingest = ServiceIngest(
      store: events, relay: relay, pushKinds: Set(descriptor.pushKinds), clock: clock, metrics: metrics,
      interest: { leases.interest() })
    let upstreams = configuration.upstreams.map { upstream in
      UpstreamSubscriber(
        upstream: upstream, key: configuration.serviceKey, store: events, ingest: ingest,
        leases: { leases.versionedLeases() }, metrics: metrics, clock: clock, roster: roster)
    }
    let leaseChanged: @Sendable () -> Void = {
      leases.invalidate()
      for upstream in upstreams { upstream.planChanged() }
    }
    let publishTo = configuration.upstreams.first?.url ?? configuration.publicOrigin.webSocketURL
    let listen = configuration.listen
    let limits = configuration.limits
    let queriesPerAddress = RateWindow(limit: limits.maxQueriesPerMinutePerIP)
    let server = try await startServer(
      HTTPServerConfiguration(
        host: listen.host, port: listen.port, maxConnections: limits.maxConnections,
        maxConnectionsPerIP: limits.maxConnectionsPerIP), field: "listen",
      routes: { port in
        let query = ServiceQuery(
          events: events, leases: leases, relay: relay, roster: roster,
          upstreams: UpstreamQuery(
            upstreams: configuration.upstreams, key: configuration.serviceKey, clock: clock),
          timeout: configuration.queryTimeout, clock: clock, metrics: metrics,
          urls: {
            [configuration.publicOrigin.url(path: "/query"), "http://\(listen.host):\(port())/query"]
          },
          queriesPerAddress: queriesPerAddress)
        return [
          HTTPServerRoute(
            "GET", "/",
            webSocket: { request, socket in
              let session = ClientSession(
                relay: relay,
                auth: NIP42Check(relayURLs: [
                  configuration.publicOrigin.webSocketURL, "ws://\(listen.host):\(port())",
                ]),
                clock: clock, blocked: "blocked: push relay: publish to \(publishTo)",
                leaseChanged: leaseChanged, limits: limits, queriesPerAddress: queriesPerAddress,
                address: request.remoteAddress)
              await session.serve(socket)
            }
          ) { request in
            Self.information(request, document: document, publishTo: publishTo)
          },
          HTTPServerRoute("POST", "/query", maxBodyBytes: ServiceQuery.maxBodyBytes) { request in
            await query.answer(request)
          },
        ]
      })
    let adminListen = configuration.adminListen
    let feeds = TrustedFeeds(
      ingest: ingest, feeds: configuration.feeds, clock: clock,
      upstreamURLs: configuration.upstreams.map(\.url))
    let admin: HTTPServer
    do {
      admin = try await startServer(
        HTTPServerConfiguration(host: adminListen.host, port: adminListen.port), field: "admin_listen",
        routes: { port in
          feeds.routes(port: port, host: adminListen.host, relay: relay, events: events, metrics: metrics)
        })
    } catch {
      await server.stop(gracePeriod: .seconds(1))
      throw error
    }
    var tasks: [Task<Void, Never>] = []
    if gateway != nil { tasks.append(Task { await relay.run() }) }
    tasks.append(
      Task {
        while !Task.isCancelled {
          _ = try? events.prune(now: clock.now())
          try? await Task.sleep(for: .seconds(3600))
        }
      })
    for upstream in upstreams { upstream.start() }
    return PushService(
      port: server.port, adminPort: admin.port, pubkey: configuration.serviceKey.publicKeyHex,
      metrics: metrics,
      events: events, relay: relay, document: document, ingest: ingest, server: server, admin: admin,
      upstreams: upstreams,
      tasks: tasks, stores: stores)
  }

  /// Stops the upstreams, both listeners and the worker.
  public func stop() async {
    for upstream in upstreams { await upstream.stop() }
    await server.stop(gracePeriod: .seconds(2))
    await admin.stop(gracePeriod: .seconds(2))
    relay.stop()
    let running = tasks.withLock { tasks in
      defer { tasks = [] }
      return tasks
    }
    for task in running {
      task.cancel()
      await task.value
    }
    stores.close()
  }

  // MARK: Parts

  /// Starts a server whose routes read its port (known only once it listens, when 0 asked the
  /// system for one).
  private static func startServer(
    _ configuration: HTTPServerConfiguration, field: String,
    routes: (@escaping @Sendable () -> UInt16) -> [HTTPServerRoute]
  ) async throws(PushServiceError) -> HTTPServer {
    let port = Locked(configuration.port)
    do {
      let server = try HTTPServer.start(configuration, router: try HTTPServerRouter(routes { port.current }))
      port.withLock { $0 = server.port }
      return server
    } catch {
      throw PushServiceError(code: .startFailed, field: field, message: error.message)
    }
  }

  /// The NIP-11 document the configuration describes, validated as a client will read it.
  package static func document(_ configuration: PushServiceConfiguration) throws(PushServiceError) -> (
    PushDescriptor, [UInt8]
  ) {
    var push = configuration.descriptor
    push["origin"] = .string(configuration.publicOrigin.webSocketURL)
    push["keys"] = .array(
      configuration.pushKeys.enumerated().map { index, key in
        var entry = JSONObject([
          "id": .string(keyID(key)), "pubkey": .string(key.publicKeyHex), "current": .bool(index == 0),
        ])
        if index > 0 { entry["retiring"] = .bool(true) }
        return .object(entry)
      })
    let information = JSONObject([
      "name": .string("nostr-push relay"),
      "description": .string("NIP-PL push relay: leases here, events from upstream relays"),
      "self": .string(configuration.serviceKey.publicKeyHex),
      "supported_nips": .array([.integer(1), .integer(11), .integer(42), .integer(98)]),
      "software": .string("https://github.com/nostrpushkit/NostrPushKit"),
      "supported_extensions": .array([.string("nip-pl")]),
      "push": .object(push),
    ])
    do {
      let read = try RelayDocument(bytes: JSONWriter.bytes(.object(information)))
      return (read.push, read.jsonBytes())
    } catch {
      throw PushServiceError(
        code: .invalidConfiguration,
        field: "descriptor"
          + (error.field.map { "." + ($0.hasPrefix("push.") ? String($0.dropFirst(5)) : $0) } ?? ""),
        message: error.message)
    }
  }

  /// `GET /` without an upgrade: NIP-11 to `Accept: application/nostr+json`, else a line of text.
  static func information(_ request: HTTPServerRequest, document: [UInt8], publishTo: String)
    -> HTTPServerResponse
  {
    guard InformationRequest.accepts(request.header("accept")) else {
      return .text(
        status: 200, "nostr-push relay: NIP-PL push leases over WebSocket; publish events to \(publishTo)\n")
    }
    return HTTPServerResponse(
      status: 200,
      headers: [
        HTTPServerHeader(name: "Content-Type", value: InformationRequest.mediaType),
        HTTPServerHeader(name: "Access-Control-Allow-Origin", value: "*"),
      ], body: document)
  }
}
