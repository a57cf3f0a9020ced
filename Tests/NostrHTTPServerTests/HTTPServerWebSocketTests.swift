import Foundation
import NostrHTTPServer
import Testing

@testable import NostrWebSocket

@Suite struct HTTPServerWebSocketTests {
  private static let route = HTTPServerRoute(
    "GET", "/ws",
    webSocket: { _, socket in
      while let message = await socket.receive() {
        try? await socket.send(Array("echo: ".utf8) + message)
      }
    },
    handler: { _ in .text(status: 200, "plain") })

  @Test func handsAnUpgradeToTheFrameCodecAndEchoes() async throws {
    try await withServer(routes: [Self.route]) { server in
      let url = try WebSocketURL("ws://127.0.0.1:\(server.port)/ws")
      let client = try await PosixWebSocketTransport.connect(to: url, deadline: .now + .seconds(10))
      try await client.send(Array("hello".utf8))
      #expect(try await client.receive() == Array("echo: hello".utf8))
      let large = [UInt8](repeating: 0x61, count: 200_000)
      try await client.send(large)
      #expect(try await client.receive() == Array("echo: ".utf8) + large)
      await client.close()
    }
  }

  @Test func servesAPlainRequestOnTheSameRouteOverHTTP() async throws {
    try await withServer(routes: [Self.route]) { server in
      let response = try await RawHTTPClient.exchange(
        port: server.port, "GET /ws HTTP/1.1\r\nHost: localhost\r\n\r\n"
      ).get()
      #expect(response.status == 200)
      #expect(response.body == Array("plain".utf8))
    }
  }

  @Test func refusesAnUpgradeWithABadKey() async throws {
    try await withServer(routes: [Self.route]) { server in
      let response = try await RawHTTPClient.exchange(
        port: server.port,
        "GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n"
      ).get()
      #expect(response.status == 400)
    }
  }

  @Test func stopEndsAnOpenWebSocket() async throws {
    let server = try HTTPServer.start(HTTPServerConfiguration(), router: HTTPServerRouter([Self.route]))
    let url = try WebSocketURL("ws://127.0.0.1:\(server.port)/ws")
    let client = try await PosixWebSocketTransport.connect(to: url, deadline: .now + .seconds(10))
    try await client.send(Array("one".utf8))
    #expect(try await client.receive() == Array("echo: one".utf8))
    await server.stop(gracePeriod: .seconds(1))
    await #expect(throws: RelayConnectionError.self) { _ = try await client.receive() }
  }
}
