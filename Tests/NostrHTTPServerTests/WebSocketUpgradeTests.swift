import NostrHTTPServer
import Testing

/// RFC 6455 §4.2.1's checks of an upgrade request, shared by the server and the fixture relay.
@Suite struct WebSocketUpgradeTests {
  static let good: [(name: String, value: String)] = [
    ("connection", "keep-alive, Upgrade"), ("sec-websocket-version", "13"),
    ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="),
  ]

  static func refusal(_ headers: [(name: String, value: String)]) -> WebSocketUpgrade.Refusal? {
    if case .failure(let refusal) = WebSocketUpgrade.accept(headers) { return refusal }
    return nil
  }

  @Test func answersTheRFCSampleKey() throws {
    #expect(try WebSocketUpgrade.accept(Self.good).get() == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
  }

  @Test func refusesInTheRFCOrder() {
    #expect(Self.refusal(Array(Self.good.dropFirst()))?.message == "Connection must name upgrade")
    let version = Self.refusal([Self.good[0], ("sec-websocket-version", "8"), Self.good[2]])
    #expect(version?.status == 426)
    #expect(version?.headers.map(\.value) == ["13"])
    let key = Self.refusal([Self.good[0], Self.good[1], ("sec-websocket-key", "short")])
    #expect(key?.status == 400)
    #expect(key?.message == "Sec-WebSocket-Key must be the base64 of 16 bytes")
  }
}
