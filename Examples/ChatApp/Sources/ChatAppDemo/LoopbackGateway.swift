import AppAttest
import Foundation
import NostrHTTPServer
import NostrPushCore
import NostrPushTesting
import PushGateway

/// TEST FIXTURE, not production: the production `PushGateway` on a loopback socket (a SQLite
/// store and a sealing key made for the run, served through `NostrHTTPServer`), sending to
/// `NostrPushTesting`'s `RecordingAPNsTransport` instead of Apple. The app registers and delegates against it
/// exactly as against a deployed gateway; a real app is given its gateway's `https` URL instead.
///
/// On Linux (where the gateway's App Attest verifier runs, on libcrypto) the app requires App
/// Attest, as a deployed gateway's `app_attest` block makes it: the trust anchor is the root of a
/// throwaway `SyntheticAppAttestAuthority` made for the run instead of Apple's, and ``device()``
/// hands the app a test provider that attests and asserts under it (on a phone:
/// `DeviceCheckAppAttestProvider`).
public final class LoopbackGateway: Sendable {
  /// The app profile the gateway serves (the same name as the relay's app profile).
  public static let appProfile = "org.nostrpushkit.demo"
  /// The app id (`TEAMID.bundle.id`) the gateway's App Attest check binds keys to.
  public static let appID = "TEAM123456.org.nostrpushkit.demo"
  #if os(Linux)
  /// Whether the gateway requires App Attest: on Linux, where its verifier runs.
  public static let requiresAppAttest = true
  #else
  /// Whether the gateway requires App Attest: on Linux, where its verifier runs.
  public static let requiresAppAttest = false
  #endif

  /// The gateway's public URL (`http://127.0.0.1:<free port>`): NIP-98 `u` tags start with it.
  public let baseURL: String
  /// The APNs requests the gateway sent.
  public let apns: RecordingAPNsTransport
  private let server: HTTPServer
  private let directory: URL
  private let makeDevice: @Sendable () throws -> (any AppAttestProvider)?

  private init(
    baseURL: String, apns: RecordingAPNsTransport, server: HTTPServer, directory: URL,
    makeDevice: @escaping @Sendable () throws -> (any AppAttestProvider)?
  ) {
    self.baseURL = baseURL
    self.apns = apns
    self.server = server
    self.directory = directory
    self.makeDevice = makeDevice
  }

  /// A new device of the app, for one installation: a test App Attest provider under the root the
  /// gateway trusts, on the gateway's clock; nil where the gateway does not require App Attest.
  public func device() throws -> (any AppAttestProvider)? { try makeDevice() }

  /// Starts a gateway whose clock reads `now`, for one app (``appProfile``, topic `topic`).
  public static func start(now: Int64, topic: String = "org.nostrpushkit.demo") async throws
    -> LoopbackGateway
  {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "chat-gateway-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let apns = RecordingAPNsTransport()
    let app = try APNsApp(
      topic: topic, environment: .sandbox, credential: .certificate, alertTitle: "Chat",
      alertBody: "New activity")
    // The public URL is the server's own, known once it listens: the routes reach the gateway
    // through this box, filled before the URL is handed to anyone.
    let box = GatewayBox()
    let routes = (PushGateway.registrationPaths + PushGateway.challengePaths + [PushGateway.deliveryPath]).map
    {
      path in
      HTTPServerRoute("POST", path, maxBodyBytes: 8192) { request in
        guard let gateway = box.gateway else { return HTTPServerResponse(status: 503) }
        return await gateway.handle(request)
      }
    }
    let server = try HTTPServer.start(HTTPServerConfiguration(), router: HTTPServerRouter(routes))
    let baseURL = "http://127.0.0.1:\(server.port)"
    var appAttest: [String: any AppAttestVerifying] = [:]
    var makeDevice: @Sendable () throws -> (any AppAttestProvider)? = { nil }
    do {
      #if os(Linux)
      // The gateway's trust anchor is configuration: this run's throwaway root, not Apple's.
      let authority = try SyntheticAppAttestAuthority(notBefore: now - 86_400)
      let appID = try AppAttestAppID(appID)
      appAttest[appProfile] = AppAttestVerifier(
        appID: appID, environment: .development,
        trustAnchor: try AppAttestTrustAnchor(certificate: authority.rootPEM))
      makeDevice = {
        SyntheticAppAttestProvider(
          authority: authority, appID: appID, environment: .development, clock: .fixed(now))
      }
      #endif
      box.gateway = try PushGateway(
        publicURL: baseURL,
        store: SQLitePushGatewayStore(path: directory.appendingPathComponent("gateway.sqlite").path),
        keys: PushGatewayKeys(
          current: PushGatewaySealingKey(keyFileText: PushGatewaySealingKey.generateKeyFileText())),
        apps: [appProfile: APNsClient(app: app, transport: apns, clock: .fixed(now))], clock: .fixed(now),
        log: { _ in }, appAttest: appAttest)
    } catch {
      await server.stop(gracePeriod: .seconds(1))
      try? FileManager.default.removeItem(at: directory)
      throw error
    }
    return LoopbackGateway(
      baseURL: baseURL, apns: apns, server: server, directory: directory, makeDevice: makeDevice)
  }

  /// Stops the server and deletes the store.
  public func stop() async {
    await server.stop(gracePeriod: .seconds(2))
    try? FileManager.default.removeItem(at: directory)
  }
}

/// The gateway the routes call, set once after the server listens.
private final class GatewayBox: @unchecked Sendable {
  private let lock = NSLock()
  private var value: PushGateway?

  var gateway: PushGateway? {
    get { lock.withLock { value } }
    set { lock.withLock { value = newValue } }
  }
}
