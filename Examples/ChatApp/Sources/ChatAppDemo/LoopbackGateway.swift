import Foundation
import NostrHTTPServer
import NostrPushCore
import NostrPushTesting
import PushGateway

/// TEST FIXTURE, not production: the production `PushGateway` on a loopback socket (a SQLite
/// store and a sealing key made for the run, served through `NostrHTTPServer`), sending to
/// `NostrPushTesting`'s `RecordingAPNsTransport` instead of Apple. The app registers and delegates against it
/// exactly as against a deployed gateway; a real app is given its gateway's `https` URL instead.
public final class LoopbackGateway: Sendable {
  /// The app profile the gateway serves (the same name as the relay's app profile).
  public static let appProfile = "org.nostrpushkit.demo"

  /// The gateway's public URL (`http://127.0.0.1:<free port>`): NIP-98 `u` tags start with it.
  public let baseURL: String
  /// The APNs requests the gateway sent.
  public let apns: RecordingAPNsTransport
  private let server: HTTPServer
  private let directory: URL

  private init(baseURL: String, apns: RecordingAPNsTransport, server: HTTPServer, directory: URL) {
    self.baseURL = baseURL
    self.apns = apns
    self.server = server
    self.directory = directory
  }

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
    let routes = (PushGateway.registrationPaths + [PushGateway.deliveryPath]).map { path in
      HTTPServerRoute("POST", path, maxBodyBytes: 8192) { request in
        guard let gateway = box.gateway else { return HTTPServerResponse(status: 503) }
        return await gateway.handle(request)
      }
    }
    let server = try HTTPServer.start(HTTPServerConfiguration(), router: HTTPServerRouter(routes))
    let baseURL = "http://127.0.0.1:\(server.port)"
    do {
      box.gateway = try PushGateway(
        publicURL: baseURL,
        store: SQLitePushGatewayStore(path: directory.appendingPathComponent("gateway.sqlite").path),
        keys: PushGatewayKeys(
          current: PushGatewaySealingKey(keyFileText: PushGatewaySealingKey.generateKeyFileText())),
        apps: [appProfile: APNsClient(app: app, transport: apns, clock: .fixed(now))], clock: .fixed(now),
        log: { _ in })
    } catch {
      await server.stop(gracePeriod: .seconds(1))
      try? FileManager.default.removeItem(at: directory)
      throw error
    }
    return LoopbackGateway(baseURL: baseURL, apns: apns, server: server, directory: directory)
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
