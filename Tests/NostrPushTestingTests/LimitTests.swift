import Foundation
import NostrEvent
import NostrPushTesting
import Testing

@Suite(.timeLimit(.minutes(2))) struct LimitTests {
  @Test func answers431ToAnOversizedHead() async throws {
    try await Scenario.serving(RelayFixtureData()) { _, origin in
      let connection = try RawConnection(port: port(of: origin))
      connection.send("GET / HTTP/1.1\r\nX-Padding: " + String(repeating: "a", count: 20 * 1024) + "\r\n\r\n")
      let received = await connection.readUntilClose()
      #expect(RawResponse(received.bytes)?.status == 431)
      #expect(received.closed)
    }
  }

  @Test func answers413ToAnOversizedBodyWithoutReadingIt() async throws {
    try await Scenario.serving(RelayFixtureData()) { _, origin in
      let connection = try RawConnection(port: port(of: origin))
      connection.send("POST /query HTTP/1.1\r\nHost: x\r\nContent-Length: \(1024 * 1024 + 1)\r\n\r\n")
      let received = await connection.readUntilClose()
      #expect(RawResponse(received.bytes)?.status == 413)
      #expect(received.closed)
    }
  }

  @Test func refusesAChunkedBodyWith411() async throws {
    try await Scenario.serving(RelayFixtureData()) { _, origin in
      let connection = try RawConnection(port: port(of: origin))
      connection.send(
        "POST /query HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n")
      let received = await connection.readUntilClose()
      #expect(RawResponse(received.bytes)?.status == 411)
      #expect(received.closed)
    }
  }

  @Test func answers400ToAMalformedRequestLine() async throws {
    try await Scenario.serving(RelayFixtureData()) { _, origin in
      let connection = try RawConnection(port: port(of: origin))
      connection.send("HELLO\r\n\r\n")
      let received = await connection.readUntilClose()
      #expect(RawResponse(received.bytes)?.status == 400)
    }
  }

  @Test func keepsTheConnectionAliveAndHonoursConnectionClose() async throws {
    try await Scenario.serving(RelayFixtureData(nip11: Array("{}".utf8))) { _, origin in
      let connection = try RawConnection(port: port(of: origin))
      let get = "GET / HTTP/1.1\r\nHost: x\r\nAccept: application/nostr+json\r\n"
      connection.send(get + "\r\n" + get + "Connection: close\r\n\r\n")
      let received = await connection.readUntilClose()
      let text = String(decoding: received.bytes, as: UTF8.self)
      #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count - 1 == 2)
      #expect(text.contains("Connection: keep-alive"))
      #expect(text.hasSuffix("Connection: close\r\n\r\n{}"))
      #expect(received.closed)
    }
  }
}
