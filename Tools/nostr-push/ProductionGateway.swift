import Foundation
import NostrHTTPServer
import NostrJSON
import NostrPushCore
import PushGateway
import PushGatewayPostgres

/// `nostr-push gateway --config FILE`: the production `PushGateway` built from its checked
/// configuration (`Docs/DeployingTheGateway.md`), its routes on `listen` and the admin listener on
/// `admin_listen`, served until SIGINT or SIGTERM.
///
/// Decisions: the routes' listener takes as many connections per address as in all (behind the
/// reverse proxy every client arrives from the proxy's address, so per-client limits are the
/// proxy's); the store's readiness probe is a read of the provider-token slot (a query that
/// touches the database); expired rows are reaped every 5 minutes (by each process, on SQLite
/// and PostgreSQL alike).
enum ProductionGateway {
  /// How long a stop waits for running requests.
  static let stopGrace: Duration = .seconds(10)

  /// Everything a running gateway holds.
  struct Running {
    let routes: HTTPServer
    let admin: HTTPServer
    let gateway: PushGateway
    let host: String
    let adminHost: String
  }

  /// Serves the gateway of the configuration at `path`; exit 1 (one line on standard error)
  /// when it is refused or a listener cannot start.
  static func serve(configPath path: String) async -> Int32 {
    let signals = TerminationSignals.arm()
    let running: Running
    do {
      running = try await start(try PushGatewayConfiguration(contentsOf: path))
    } catch {
      CLIOutput.error("nostr-push gateway: \(error)")
      return ExitCode.failure
    }
    CLIOutput.line(
      JSONWriter.string(
        .object(
          JSONObject([
            "listening": .string("http://\(running.host):\(running.routes.port)"),
            "admin": .string("http://\(running.adminHost):\(running.admin.port)"),
          ]))))
    let reaper = Task { await running.gateway.runReaper() }
    await signals.wait()
    reaper.cancel()
    await running.routes.stop(gracePeriod: stopGrace)
    await running.admin.stop(gracePeriod: .seconds(1))
    return ExitCode.success
  }

  /// Opens the store, builds the apps' APNs clients and the gateway, and starts both listeners.
  static func start(_ configuration: PushGatewayConfiguration) async throws -> Running {
    let store: any PushGatewayStore
    switch configuration.store {
    case .sqlite(let path): store = try SQLitePushGatewayStore(path: path)
    case .postgres(let conninfo): store = try PostgresPushGatewayStore(connectionString: conninfo)
    }
    let keys = try PushGatewayKeys(
      current: PushGatewaySealingKey(secret: configuration.key.bytes),
      previous: configuration.previousKeys.map { material throws(PushGatewayError) in
        try PushGatewaySealingKey(secret: material.bytes)
      })
    let metrics = PushGatewayMetrics()
    var clients: [String: APNsClient] = [:]
    for app in configuration.apps {
      var slot: any APNsProviderTokenSlot = InMemoryAPNsProviderTokenSlot()
      if case .token(_, let keyID, let teamID) = app.authentication {
        slot = StoreProviderTokenSlot(
          store: store, slot: StoreProviderTokenSlot.slotName(keyID: keyID, teamID: teamID))
      }
      let transport = MeteredAPNsTransport(
        try app.apnsTransport(override: configuration.apnsOverride), metrics: metrics)
      clients[app.appProfile] = APNsClient(app: try app.apnsApp(tokenSlot: slot), transport: transport)
    }
    let gateway = try PushGateway(
      publicURL: configuration.publicURL, store: store, keys: keys, apps: clients,
      quotaPer10Seconds: configuration.quota.per10Seconds, quotaPerHour: configuration.quota.perHour,
      owners: configuration.owners, relayPubkeys: configuration.relayPubkeys, metrics: metrics,
      appAttest: configuration.appAttestVerifiers)
    let readiness = PushGatewayReadiness(
      store: { await storeAnswers(store) },
      keys: { true },
      apps: configuration.apps.map { ($0.appProfile, PushGatewayReadiness.credentialCheck(for: $0)) })
    let routes = try HTTPServer.start(
      HTTPServerConfiguration(
        host: configuration.listen.host, port: configuration.listen.port,
        maxConnectionsPerIP: HTTPServerConfiguration.defaultMaxConnections),
      router: HTTPServerRouter(gateway.routes))
    do {
      let admin = try PushGatewayAdminListener.start(
        address: configuration.adminListen, metrics: metrics, readiness: readiness)
      return Running(
        routes: routes, admin: admin, gateway: gateway, host: configuration.listen.host,
        adminHost: configuration.adminListen.host)
    } catch {
      await routes.stop(gracePeriod: .seconds(1))
      throw error
    }
  }

  /// Whether a read of the store answers (without throwing).
  private static func storeAnswers(_ store: any PushGatewayStore) async -> Bool {
    do {
      _ = try await store.providerToken(slot: "readiness-probe")
      return true
    } catch {
      return false
    }
  }
}
