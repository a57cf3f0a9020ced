import Foundation
import NostrPushTestSupport
import NostrPushTesting
import Testing

@Suite(.timeLimit(.minutes(2))) struct LifecycleTests {
  @Test(arguments: ["10.0.0.1", "0.0.0.0", "192.168.1.2", "::", "2001:db8::1", "::ffff:127.0.0.1"])
  func refusesANonLoopbackAddress(host: String) async throws {
    let server = RelayFixtureServer(
      data: RelayFixtureData(), configuration: RelayFixtureConfiguration(host: host))
    let error = await #expect(throws: RelayFixtureError.self) { try await server.start() }
    #expect(error?.code == .nonLoopbackHost)
    #expect(error?.field == "host")
  }

  @Test(arguments: ["example.com", "127.0.0.1.nip.io", ""])
  func refusesAHostName(host: String) async throws {
    let server = RelayFixtureServer(
      data: RelayFixtureData(), configuration: RelayFixtureConfiguration(host: host))
    let error = await #expect(throws: RelayFixtureError.self) { try await server.start() }
    #expect(error?.code == .invalidHost)
  }

  @Test func bindsAnyAddressIn127Slash8AndPicksAFreePort() async throws {
    let server = RelayFixtureServer(
      data: RelayFixtureData(), configuration: RelayFixtureConfiguration(host: "127.0.0.2", port: 0))
    let url = try await server.start()
    await server.stop()
    #expect(url.host == "127.0.0.2")
    #expect((url.port ?? 0) > 0)
  }

  @Test func servesOnTheIPv6Loopback() async throws {
    let document = Array("{}".utf8)
    let server = RelayFixtureServer(
      data: RelayFixtureData(nip11: document), configuration: RelayFixtureConfiguration(host: "::1"))
    var bound: URL?
    do {
      bound = try await server.start()
    } catch {
      guard error.code == .socket else { throw error }
    }
    guard let url = bound else { return }  // no IPv6 on this machine: nothing to serve on
    let connection = try RawConnection(port: url.port ?? 0, ipv6: true)
    connection.send(
      "GET / HTTP/1.1\r\nHost: [::1]\r\nAccept: application/nostr+json\r\nConnection: close\r\n\r\n")
    let response = RawResponse(await connection.readUntilClose().bytes)
    await server.stop()
    #expect(url.absoluteString.hasPrefix("http://[::1]:"))
    #expect(response?.body == document)
  }

  @Test func refusesAPortThatIsTaken() async throws {
    let first = RelayFixtureServer(data: RelayFixtureData())
    let url = try await first.start()
    let second = RelayFixtureServer(
      data: RelayFixtureData(), configuration: RelayFixtureConfiguration(port: url.port!))
    let error = await #expect(throws: RelayFixtureError.self) { try await second.start() }
    await first.stop()
    #expect(error?.code == .addressInUse)
  }

  @Test func refusesASecondStart() async throws {
    let server = RelayFixtureServer(data: RelayFixtureData())
    try await server.start()
    let error = await #expect(throws: RelayFixtureError.self) { try await server.start() }
    await server.stop()
    #expect(error?.code == .invalidState)
  }

  @Test func stopClosesOpenConnectionsAndTheListener() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData())
    let idle = try RawConnection(port: port(of: origin))
    idle.send("GET / HT")
    #expect(await Polling.eventually(within: .seconds(10)) { server.activeConnections == 1 })
    await server.stop()
    #expect(await idle.readUntilClose(idleMilliseconds: 2000).closed)
    #expect(server.activeConnections == 0)
    #expect(server.origin == nil)
    #expect(throws: RawConnectionError.self) { try RawConnection(port: port(of: origin)) }
  }

  @Test func stopEndsDelayedAnswersAndJoinsEveryConnection() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData(nip11: Array("{}".utf8)))
    server.setFaults([RelayFault(path: "/", action: .delay(milliseconds: 60_000))])
    let connections = try (0..<20).map { _ in try RawConnection(port: port(of: origin)) }
    for connection in connections {
      connection.send("GET / HTTP/1.1\r\nHost: x\r\nAccept: application/nostr+json\r\n\r\n")
    }
    #expect(
      await Polling.eventually(within: .seconds(30)) { server.requestCount(path: "/") >= connections.count })
    let started = ContinuousClock.now
    await server.stop()
    let stopping = ContinuousClock.now - started
    #expect(server.activeConnections == 0)
    #expect(stopping < .seconds(5))
    for connection in connections {
      let received = await connection.readUntilClose(idleMilliseconds: 2000)
      #expect(received.closed)
      #expect(received.bytes.isEmpty)
    }
  }

  @Test func makesConnectionsOverTheLimitWaitForAFreeSlot() async throws {
    let (server, origin) = try await Scenario.start(RelayFixtureData(nip11: Array("{}".utf8))) {
      $0.maxConnections = 2
      // Long enough that a busy machine cannot turn the held requests into 408s mid-test.
      $0.requestTimeout = .seconds(120)
    }
    let first = try RawConnection(port: port(of: origin))
    let second = try RawConnection(port: port(of: origin))
    first.send("GET / HT")
    second.send("GET / HT")
    #expect(await Polling.eventually(within: .seconds(10)) { server.activeConnections >= 2 })
    let third = try RawConnection(port: port(of: origin))
    third.send("GET / HTTP/1.1\r\nHost: x\r\nAccept: application/nostr+json\r\nConnection: close\r\n\r\n")
    // A bounded negative check: the third connection must get no answer while the two are open.
    let servedWhileFull = await Polling.eventually(within: .milliseconds(300)) { third.isReadable() }
    let countWhileFull = server.requestCount(path: "/")
    first.send("TP/1.1\r\nHost: x\r\nAccept: application/nostr+json\r\nConnection: close\r\n\r\n")
    let firstAnswer = RawResponse(await first.readUntilClose().bytes)
    let thirdAnswer = RawResponse(await third.readUntilClose().bytes)
    await server.stop()
    #expect(!servedWhileFull)
    #expect(countWhileFull == 0)
    #expect(firstAnswer?.status == 200)
    #expect(thirdAnswer?.status == 200)
  }
}
