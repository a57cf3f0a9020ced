import Foundation
import NostrHTTPServer
import NostrPushCore
import NostrPushTesting
import PushGateway

/// The demo's push gateway: the production ``PushGateway`` (a SQLite store in the run's folder, a
/// fresh sealing key, one app on token auth with an ES256 key generated for the run) served by
/// ``HTTPServer`` on 127.0.0.1, with a ``RecordingAPNsTransport`` in place of the network hop to
/// Apple — every APNs request it would send is kept for the `wake` step to show and check.
///
/// Decisions: the app's topic is the demo's app profile, its key id and team id are fixed
/// 10-character demo values, its alert the specification's "Reconnect to your relay now" under
/// a title (the production gateway's wake body always has one); the quota is the gateway's
/// default.
final class DemoGateway: Sendable {
  /// The app profile the gateway serves (the demo descriptor's, for both protocols).
  static let appProfile = "org.nostrpushkit.demo"
  /// The run's APNs key id (the JWT's `kid`).
  static let keyID = "DEMOKEY001"
  /// The run's team id (the JWT's `iss`).
  static let teamID = "DEMOTEAM01"
  /// The wake's alert title, shown only if the extension dies before it hands content over.
  static let alertTitle = "NostrPushKit demo"
  /// The wake's alert body: the relay specification's constant text.
  static let alertBody = "Reconnect to your relay now"
  /// The largest body a gateway route reads (the gateway answers 413 above).
  static let maxBodyBytes = 8192

  /// The running gateway.
  let gateway: PushGateway
  /// Its routes' listener.
  let server: HTTPServer
  /// What the gateway sent to "APNs".
  let transport: RecordingAPNsTransport
  /// The public half of the run's APNs signing key (65-byte uncompressed point).
  let signingPublicKey: [UInt8]
  /// `http://127.0.0.1:<port>`, the gateway's public URL.
  let baseURL: String

  private init(
    gateway: PushGateway, server: HTTPServer, transport: RecordingAPNsTransport, signingPublicKey: [UInt8],
    baseURL: String
  ) {
    self.gateway = gateway
    self.server = server
    self.transport = transport
    self.signingPublicKey = signingPublicKey
    self.baseURL = baseURL
  }

  /// Starts the gateway with its store in `directory` (which must exist), on `clock`; `log`
  /// receives its operator messages.
  static func start(
    directory: String, clock: UnixClock = .system, log: @escaping @Sendable (String) -> Void
  ) async throws -> DemoGateway {
    let store = try SQLitePushGatewayStore(path: directory + "/gateway.sqlite")
    let keys = try PushGatewayKeys(
      current: PushGatewaySealingKey(keyFileText: PushGatewaySealingKey.generateKeyFileText()))
    let signingKey = try APNsSigningKey(pem: try APNsSigningKey.generatePEM())
    let tokens = APNsProviderTokens(
      key: signingKey, keyID: try APNsIdentifier(keyID, field: "key_id"),
      teamID: try APNsIdentifier(teamID, field: "team_id"), clock: clock)
    let app = try APNsApp(
      topic: appProfile, environment: .sandbox, credential: .token(tokens), alertTitle: alertTitle,
      alertBody: alertBody)
    let transport = RecordingAPNsTransport()
    // The public URL is the listener's own, known once it listens: the routes reach the gateway
    // through this box.
    let box = Locked<PushGateway?>(nil)
    let routes = (PushGateway.registrationPaths + [PushGateway.deliveryPath]).map { path in
      HTTPServerRoute("POST", path, maxBodyBytes: maxBodyBytes) { request in
        guard let gateway = box.current else {
          return .json(status: 503, Array(#"{"error":"starting"}"#.utf8))
        }
        return await gateway.handle(request)
      }
    }
    let server = try HTTPServer.start(HTTPServerConfiguration(), router: HTTPServerRouter(routes))
    let baseURL = "http://127.0.0.1:\(server.port)"
    do {
      let gateway = try PushGateway(
        publicURL: baseURL, store: store, keys: keys,
        apps: [appProfile: APNsClient(app: app, transport: transport, clock: clock)], clock: clock, log: log)
      box.withLock { $0 = gateway }
      return DemoGateway(
        gateway: gateway, server: server, transport: transport, signingPublicKey: try signingKey.publicKey(),
        baseURL: baseURL)
    } catch {
      await server.stop(gracePeriod: .seconds(1))
      throw error
    }
  }

  /// Stops the listener.
  func stop() async {
    await server.stop(gracePeriod: .seconds(2))
  }
}
