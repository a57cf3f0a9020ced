import NostrHTTPServer
import NostrJSON
import NostrPushCore

/// The gateway's private listener (`admin_listen`, loopback by default): `GET /_liveness`,
/// `GET /_readiness` and `GET /metrics` (Prometheus text from ``PushGatewayMetrics``).
///
/// - `/_liveness`: 200 `{"status":"alive"}` while the process serves at all.
/// - `/_readiness`: 200 `{"status":"ready","store":true,"keys":true,"apps":{"<profile>":true}}`
///   when every check of ``PushGatewayReadiness`` passes, else 503 with `"status":"not_ready"`
///   and the same members. Checks run concurrently, each bounded by ``checkTimeout``.
/// - `/metrics`: 200, `text/plain; version=0.0.4`.
///
/// The routes are plain ``HTTPServerRoute``s, so they can be mounted in another server too.
public enum PushGatewayAdminListener {
  /// How long one readiness check may take before it counts as not ready.
  public static let checkTimeout: Duration = .seconds(2)

  /// The three routes.
  public static func routes(metrics: PushGatewayMetrics, readiness: PushGatewayReadiness) -> [HTTPServerRoute]
  {
    [
      HTTPServerRoute("GET", "/_liveness") { _ in .json(status: 200, Array(#"{"status":"alive"}"#.utf8)) },
      HTTPServerRoute("GET", "/_readiness") { _ in await readinessResponse(readiness) },
      HTTPServerRoute("GET", "/metrics") { _ in
        HTTPServerResponse(
          status: 200,
          headers: [
            HTTPServerHeader(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
          ],
          body: Array(metrics.prometheusText().utf8))
      },
    ]
  }

  /// Starts the listener on `address`; `start_failed` when the port is taken.
  public static func start(
    address: PushGatewayListenAddress, metrics: PushGatewayMetrics, readiness: PushGatewayReadiness
  ) throws(HTTPServerError) -> HTTPServer {
    try HTTPServer.start(
      HTTPServerConfiguration(
        host: address.host, port: address.port, maxConnections: 64, maxConnectionsPerIP: 16),
      router: try HTTPServerRouter(routes(metrics: metrics, readiness: readiness)))
  }

  private static func readinessResponse(_ readiness: PushGatewayReadiness) async -> HTTPServerResponse {
    let deadline = ContinuousClock.now + checkTimeout
    func bounded(_ check: @escaping PushGatewayReadiness.Check) async -> Bool {
      await DeadlineRace.value(by: deadline, cancelsOperation: true, check) ?? false
    }
    async let store = bounded(readiness.store)
    async let keys = bounded(readiness.keys)
    let apps = await withTaskGroup(of: (Int, Bool).self) { group in
      for (index, app) in readiness.apps.enumerated() {
        group.addTask { (index, await bounded(app.check)) }
      }
      var results = [Bool](repeating: false, count: readiness.apps.count)
      for await (index, ready) in group { results[index] = ready }
      return results
    }
    let storeReady = await store
    let keysReady = await keys
    let ready = storeReady && keysReady && apps.allSatisfy { $0 }
    var appsObject = JSONObject()
    for (index, app) in readiness.apps.enumerated() { appsObject[app.profile] = .bool(apps[index]) }
    let body = JSONObject([
      "status": .string(ready ? "ready" : "not_ready"), "store": .bool(storeReady), "keys": .bool(keysReady),
      "apps": .object(appsObject),
    ])
    return .json(status: ready ? 200 : 503, JSONWriter.bytes(.object(body)))
  }
}
