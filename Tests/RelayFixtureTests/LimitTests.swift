import Foundation
import NostrEvent
import RelayFixture
import Testing

@Suite struct LimitTests {
  @Test func answers431ToAnOversizedHead() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData())
    let connection = try RawConnection(port: port(of: origin))
    connection.send("GET / HTTP/1.1\r\nX-Padding: " + String(repeating: "a", count: 20 * 1024) + "\r\n\r\n")
    let received = connection.readUntilClose()
    await server.stop()
    #expect(RawResponse(received.bytes)?.status == 431)
    #expect(received.closed)
  }

  @Test func answers413ToAnOversizedBodyWithoutReadingIt() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData())
    let connection = try RawConnection(port: port(of: origin))
    connection.send("POST /query HTTP/1.1\r\nHost: x\r\nContent-Length: \(1024 * 1024 + 1)\r\n\r\n")
    let received = connection.readUntilClose()
    await server.stop()
    #expect(RawResponse(received.bytes)?.status == 413)
    #expect(received.closed)
  }

  @Test func refusesAChunkedBodyWith411() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData())
    let connection = try RawConnection(port: port(of: origin))
    connection.send(
      "POST /query HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n")
    let received = connection.readUntilClose()
    await server.stop()
    #expect(RawResponse(received.bytes)?.status == 411)
    #expect(received.closed)
  }

  @Test func answers400ToAMalformedRequestLine() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData())
    let connection = try RawConnection(port: port(of: origin))
    connection.send("HELLO\r\n\r\n")
    let received = connection.readUntilClose()
    await server.stop()
    #expect(RawResponse(received.bytes)?.status == 400)
  }

  @Test func keepsTheConnectionAliveAndHonoursConnectionClose() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData(nip11: Array("{}".utf8)))
    let connection = try RawConnection(port: port(of: origin))
    let get = "GET / HTTP/1.1\r\nHost: x\r\nAccept: application/nostr+json\r\n"
    connection.send(get + "\r\n" + get + "Connection: close\r\n\r\n")
    let received = connection.readUntilClose()
    await server.stop()
    let text = String(decoding: received.bytes, as: UTF8.self)
    #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count - 1 == 2)
    #expect(text.contains("Connection: keep-alive"))
    #expect(text.hasSuffix("Connection: close\r\n\r\n{}"))
    #expect(received.closed)
  }

  @Test func cutsOffATricklingClientWithoutStallingOthers() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData(nip11: Array("{}".utf8))) {
      $0.requestTimeout = .seconds(1)
    }
    let slow = try RawConnection(port: port(of: origin))
    let request = Array("GET / HTTP/1.1\r\nHost: x\r\nAccept: application/nostr+json\r\n\r\n".utf8)
    let started = ContinuousClock.now
    var sent = 0
    var otherAnsweredAt: ContinuousClock.Instant?
    let client = HTTPTestClient()
    defer { client.invalidate() }
    while sent < request.count, !slow.isReadable() {
      guard slow.send([request[sent]]) else { break }
      sent += 1
      if sent == 2 {
        let other = try await client.send("GET", origin + "/", headers: ["Accept": "application/nostr+json"])
        #expect(other.status == 200)
        otherAnsweredAt = ContinuousClock.now
      }
      try await Task.sleep(for: .milliseconds(250))
    }
    let received = slow.readUntilClose(idleMilliseconds: 3000)
    let cutOffAt = ContinuousClock.now
    await server.stop()
    #expect(sent < request.count)
    #expect(RawResponse(received.bytes)?.status == 408)
    #expect(received.closed)
    #expect(cutOffAt - started < .seconds(3))
    let answered = try #require(otherAnsweredAt)
    #expect(answered < cutOffAt)
  }
}
