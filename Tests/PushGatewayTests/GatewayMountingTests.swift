import Foundation
import NostrCurlHTTP
import NostrEvent
import NostrHTTP
import NostrHTTPServer
import NostrJSON
import NostrPushCore
import NostrPushTesting
import Testing

@testable import PushGateway

@Suite struct GatewayMountingTests {
  @Test func servesItsOwnRoutesBehindAProxyOriginThroughHTTPServer() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "gateway-mount-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try SQLitePushGatewayStore(path: directory.appendingPathComponent("g.sqlite").path)
    let keys = try PushGatewayKeys(
      current: PushGatewaySealingKey(keyFileText: PushGatewaySealingKey.generateKeyFileText()))
    let recording = RecordingAPNsTransport()
    let app = try APNsApp(
      topic: "org.example.chat", environment: .production, credential: .certificate, alertTitle: "T",
      alertBody: "B")
    let publicURL = "https://push.example.org"
    let gateway = try PushGateway(
      publicURL: publicURL, store: store, keys: keys,
      apps: ["chat": APNsClient(app: app, transport: recording)])
    #expect(
      gateway.routes.map(\.path)
        == PushGateway.registrationPaths + PushGateway.challengePaths + [PushGateway.deliveryPath])
    let server = try HTTPServer.start(HTTPServerConfiguration(), router: HTTPServerRouter(gateway.routes))
    let http = try CurlHTTPClient()
    func post(_ path: String, _ body: String, key: SecretKey) async throws -> (Int, String) {
      let bytes = Array(body.utf8)
      let header = try NIP98.authorizationHeader(
        url: publicURL + path, method: "POST", body: bytes, key: key, now: Int64(Date().timeIntervalSince1970)
      )
      let response = try await http.send(
        HTTPTransportRequest(
          url: "http://127.0.0.1:\(server.port)" + path, method: "POST", headers: ["Authorization": header],
          body: bytes, maxResponseBytes: 16 * 1024),
        deadline: .now + .seconds(20))
      return (response.status, String(decoding: response.body, as: UTF8.self))
    }
    do {
      let owner = SecretKey.generate()
      let now = Int64(Date().timeIntervalSince1970)
      let (status, body) = try await post(
        "/v1/installations",
        #"{"v":1,"app_profile":"chat","endpoint":"\#(testToken(900))","expires_at":\#(now + 86_400)}"#,
        key: owner)
      #expect(status == 201, "\(body)")
      let (large, _) = try await post(
        "/v1/installations", #"{"v":1,"x":""# + String(repeating: "a", count: 8200) + #""}"#, key: owner)
      #expect(large == 413)
      let (unknown, unknownBody) = try await post("/v1/deliveries/fcm", "{}", key: owner)
      #expect(unknown == 404)
      #expect(unknownBody == #"{"error":"not_found"}"#)
      let text = gateway.metrics.prometheusText()
      #expect(text.contains(#"push_gateway_registrations_total{route="installations",outcome="created"} 1"#))
      #expect(text.contains("# TYPE push_gateway_admission_seconds histogram"))
    } catch {
      await server.stop()
      await http.shutdown()
      throw error
    }
    await server.stop()
    await http.shutdown()
  }
}
