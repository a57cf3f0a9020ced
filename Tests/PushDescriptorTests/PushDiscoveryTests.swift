import Foundation
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import PushDescriptor
import Testing

/// Discovery against the real fixture relay on loopback.
@Suite(.timeLimit(.minutes(2))) struct PushDiscoveryTests {
  static var validBody: [UInt8] { TestSupport.bytes(TestSupport.document) }

  /// Runs `body` against a started fixture relay serving `nip11` with `faults`, then stops it.
  static func withRelay<T>(
    nip11: [UInt8]? = validBody, faults: [RelayFault] = [],
    _ body: (RelayFixtureServer, String) async throws -> T
  ) async throws -> T {
    try await NostrPushTestSupport.withRelay(RelayFixtureData(nip11: nip11, faults: faults)) { server in
      try await body(server, try #require(server.origin))
    }
  }

  static func discoveryError(_ relay: String, timeout: Duration = .seconds(5)) async -> PushDescriptorError? {
    do {
      _ = try await PushDiscovery().discover(relay: relay, timeout: timeout)
      return nil
    } catch {
      return error
    }
  }

  static let transportFailure = PushDescriptorError(code: .transport, field: "http", message: "")

  @Test func discoversADescriptorFromAWebSocketURL() async throws {
    try await Self.withRelay { server, base in
      let relay = base.replacingOccurrences(of: "http://", with: "ws://")
      let document = try await PushDiscovery().discover(relay: relay, timeout: .seconds(5))
      #expect(document.push == TestSupport.descriptor)
      #expect(document.ignoredTopLevelKeys == TestSupport.futureKeys)
      let requests = server.requests()
      #expect(requests.map(\.method) == ["GET"])
      #expect(requests.map(\.path) == ["/"])
      #expect(requests.map(\.status) == [200])
    }
  }

  @Test func discoversTheDemoRelayDescriptor() async throws {
    let nip11 = try TestSupport.fixtureBytes("Fixtures/demo/nip11.json")
    try await Self.withRelay(nip11: nip11) { _, base in
      let document = try await PushDiscovery().discover(
        relay: base, requiredAppProfile: PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns"))
      #expect(document.push.currentKey?.id == "demo-2026-01")
    }
  }

  @Test(arguments: [301, 302, 307, 308, 404, 500, 503, 204, 201])
  func failsClosedOnAStatusOtherThan200(_ status: Int) async throws {
    try await Self.withRelay(faults: [RelayFault(path: "/", action: .status(status))]) { server, base in
      #expect(await Self.discoveryError(base) == Self.transportFailure)
      #expect(server.requests().map(\.status) == [status])
    }
  }

  @Test func failsClosedWhenTheRelayIsSlowerThanTheTimeout() async throws {
    try await Self.withRelay(faults: [RelayFault(path: "/", action: .delay(milliseconds: 10_000))]) {
      _, base in
      let start = ContinuousClock.now
      #expect(await Self.discoveryError(base, timeout: .milliseconds(300)) == Self.transportFailure)
      #expect(ContinuousClock.now - start < .seconds(5))
    }
  }

  @Test(arguments: [true, false])
  func failsClosedOnATenMebibyteBody(_ declaresLength: Bool) async throws {
    let fault = RelayFault(
      path: "/", action: .oversizedBody(bytes: 10 * 1024 * 1024, declaresLength: declaresLength))
    try await Self.withRelay(faults: [fault]) { _, base in
      #expect(await Self.discoveryError(base) == Self.transportFailure)
    }
  }

  @Test func readsABodyExactlyAtTheCap() async throws {
    var body = Self.validBody
    body.append(contentsOf: [UInt8](repeating: 0x20, count: PushDiscovery.maxBodyBytes - body.count))
    try await Self.withRelay(nip11: body) { _, base in
      let document = try await PushDiscovery().discover(relay: base, timeout: .seconds(5))
      #expect(document.push == TestSupport.descriptor)
    }
  }

  @Test func failsClosedOnATruncatedBody() async throws {
    try await Self.withRelay(faults: [RelayFault(path: "/", action: .truncatedBody)]) { _, base in
      #expect(await Self.discoveryError(base) == Self.transportFailure)
    }
  }

  @Test func failsClosedWhenTheConnectionCloses() async throws {
    try await Self.withRelay(faults: [RelayFault(path: "/", action: .closeConnection)]) { _, base in
      #expect(await Self.discoveryError(base) == Self.transportFailure)
    }
  }

  @Test func reportsA200ThatIsNotJSONAsTheDocument() async throws {
    try await Self.withRelay(faults: [RelayFault(path: "/", action: .notJSON)]) { _, base in
      #expect(
        await Self.discoveryError(base)
          == PushDescriptorError(code: .wrongType, field: "document", message: ""))
    }
  }

  @Test(arguments: ["[1,2,3]", "", "\"nip-pl\"", "null"])
  func reportsA200ThatIsNotAJSONObjectAsTheDocument(_ body: String) async throws {
    let fault = RelayFault(
      path: "/", action: .body(status: 200, contentType: "application/nostr+json", bytes: Array(body.utf8)))
    try await Self.withRelay(faults: [fault]) { _, base in
      #expect(
        await Self.discoveryError(base)
          == PushDescriptorError(code: .wrongType, field: "document", message: ""))
    }
  }

  @Test func reportsAnInvalidDescriptorServedWith200() async throws {
    var object = TestSupport.document
    object["supported_extensions"] = .array([.string("nip-xx")])
    try await Self.withRelay(nip11: TestSupport.bytes(object)) { _, base in
      #expect(
        await Self.discoveryError(base)
          == PushDescriptorError(code: .notAdvertised, field: "supported_extensions", message: ""))
    }
  }

  @Test func failsClosedWhenNothingListens() async throws {
    let base = try await Self.withRelay { _, base in base }
    #expect(await Self.discoveryError(base) == Self.transportFailure)
  }

  @Test func failsClosedWhenCancelled() async throws {
    try await Self.withRelay(faults: [RelayFault(path: "/", action: .delay(milliseconds: 10_000))]) {
      server, base in
      let task = Task { await Self.discoveryError(base, timeout: .seconds(30)) }
      #expect(await Polling.eventually(within: .seconds(5)) { server.requestCount(path: "/") > 0 })
      task.cancel()
      #expect(await task.value == Self.transportFailure)
    }
  }

  /// The fixture relay cannot send a `Location` header, so this one case uses the test target's
  /// own loopback responder: a redirect to a relay that would answer 200 must not be followed.
  @Test(arguments: [301, 302, 307, 308])
  func doesNotFollowARedirect(_ status: Int) async throws {
    try await Self.withRelay { target, targetBase in
      let server = try LoopbackHTTPResponder(
        .init(status: status, headers: ["Location: \(targetBase)/"], body: Self.validBody))
      defer { server.stop() }
      #expect(await Self.discoveryError(server.baseURL) == Self.transportFailure)
      #expect(target.requests().isEmpty)
      #expect(server.receivedRequests.count == 1)
    }
  }

  @Test(arguments: [
    ("ws://relay.example", "http://relay.example/"),
    ("wss://relay.example", "https://relay.example/"),
    ("wss://relay.example:444/nostr", "https://relay.example:444/nostr"),
    ("WSS://relay.example/", "https://relay.example/"),
    ("http://127.0.0.1:7000", "http://127.0.0.1:7000/"),
  ])
  func mapsRelayURLsToHTTP(_ relay: String, _ expected: String) {
    #expect(PushDiscovery.informationURL(forRelay: relay)?.absoluteString == expected)
  }

  @Test(arguments: ["relay.example", "ftp://relay.example", "wss://", "", "file:///etc/passwd"])
  func refusesRelayURLsThatAreNotWebSocketOrHTTP(_ relay: String) async {
    #expect(PushDiscovery.informationURL(forRelay: relay) == nil)
    #expect(await Self.discoveryError(relay) == Self.transportFailure)
  }
}
