import Foundation
import NostrJSON
import PushDescriptor
import Testing

@Suite struct PushDiscoveryTests {
  static var validBody: [UInt8] { TestSupport.bytes(TestSupport.document) }

  @Test func discoversADescriptorOverHTTP() async throws {
    let server = try LoopbackHTTPResponder(.init(body: Self.validBody))
    defer { server.stop() }
    let document = try await PushDiscovery().discover(
      relay: "ws://127.0.0.1:\(server.port)", timeout: .seconds(5))
    #expect(document.push == TestSupport.descriptor)
    #expect(document.ignoredTopLevelKeys == TestSupport.futureKeys)
    let request = try #require(server.receivedRequests.first)
    #expect(request.hasPrefix("GET / HTTP/1.1\r\n"))
    #expect(request.lowercased().contains("accept: application/nostr+json\r\n"))
  }

  @Test func readsABodyWithoutContentLength() async throws {
    let server = try LoopbackHTTPResponder(.init(body: Self.validBody, declaresLength: false))
    defer { server.stop() }
    let document = try await PushDiscovery().discover(relay: server.baseURL, timeout: .seconds(5))
    #expect(document.push == TestSupport.descriptor)
  }

  @Test(arguments: [404, 500, 204, 201])
  func failsClosedOnAStatusOtherThan200(_ status: Int) async throws {
    let server = try LoopbackHTTPResponder(.init(status: status, body: Self.validBody))
    defer { server.stop() }
    let error = await Self.discoveryError(server.baseURL)
    #expect(error?.field == "http")
    #expect(error?.code == .transport)
  }

  @Test(arguments: [301, 302, 307, 308])
  func failsClosedOnARedirectWithoutFollowingIt(_ status: Int) async throws {
    let target = try LoopbackHTTPResponder(.init(body: Self.validBody))
    defer { target.stop() }
    let server = try LoopbackHTTPResponder(
      .init(status: status, headers: ["Location: \(target.baseURL)/"], body: Self.validBody))
    defer { server.stop() }
    let error = await Self.discoveryError(server.baseURL)
    #expect(error == PushDescriptorError(code: .transport, field: "http", message: ""))
    #expect(target.receivedRequests.isEmpty)
  }

  @Test func failsClosedWhenTheServerIsSlowerThanTheTimeout() async throws {
    let server = try LoopbackHTTPResponder(.init(body: Self.validBody, delay: .seconds(10)))
    defer { server.stop() }
    let start = ContinuousClock.now
    let error = await Self.discoveryError(server.baseURL, timeout: .milliseconds(300))
    #expect(error == PushDescriptorError(code: .transport, field: "http", message: ""))
    #expect(ContinuousClock.now - start < .seconds(5))
  }

  @Test(arguments: [true, false])
  func failsClosedOnABodyOverTheCap(_ declaresLength: Bool) async throws {
    var body = Self.validBody
    body.append(contentsOf: [UInt8](repeating: 0x20, count: 10 * 1024 * 1024))
    let server = try LoopbackHTTPResponder(.init(body: body, declaresLength: declaresLength))
    defer { server.stop() }
    let error = await Self.discoveryError(server.baseURL)
    #expect(error == PushDescriptorError(code: .transport, field: "http", message: ""))
  }

  @Test func readsABodyExactlyAtTheCap() async throws {
    var body = Self.validBody
    body.append(contentsOf: [UInt8](repeating: 0x20, count: PushDiscovery.maxBodyBytes - body.count))
    let server = try LoopbackHTTPResponder(.init(body: body, declaresLength: false))
    defer { server.stop() }
    let document = try await PushDiscovery().discover(relay: server.baseURL, timeout: .seconds(5))
    #expect(document.push == TestSupport.descriptor)
  }

  @Test(arguments: ["<html>relay</html>", "[1,2,3]", "", "\"nip-pl\""])
  func failsClosedOnA200ThatIsNotAJSONObject(_ body: String) async throws {
    let server = try LoopbackHTTPResponder(.init(body: Array(body.utf8)))
    defer { server.stop() }
    let error = await Self.discoveryError(server.baseURL)
    #expect(error == PushDescriptorError(code: .wrongType, field: "document", message: ""))
  }

  @Test func failsClosedWhenNothingListens() async throws {
    let server = try LoopbackHTTPResponder(.init())
    defer { server.stop() }
    let url = server.baseURL
    server.stop()
    let error = await Self.discoveryError(url)
    #expect(error?.field == "http")
    #expect(error?.code == .transport)
  }

  @Test func failsClosedWhenCancelled() async throws {
    let server = try LoopbackHTTPResponder(.init(body: Self.validBody, delay: .seconds(10)))
    defer { server.stop() }
    let task = Task { await Self.discoveryError(server.baseURL, timeout: .seconds(30)) }
    try await Task.sleep(for: .milliseconds(200))
    task.cancel()
    let error = await task.value
    #expect(error == PushDescriptorError(code: .transport, field: "http", message: ""))
  }

  @Test func reportsAnInvalidDescriptorServedWith200() async throws {
    var object = TestSupport.document
    object["supported_extensions"] = .array([.string("nip-xx")])
    let server = try LoopbackHTTPResponder(.init(body: TestSupport.bytes(object)))
    defer { server.stop() }
    let error = await Self.discoveryError(server.baseURL)
    #expect(error == PushDescriptorError(code: .notAdvertised, field: "supported_extensions", message: ""))
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
    let error = await Self.discoveryError(relay)
    #expect(error == PushDescriptorError(code: .transport, field: "http", message: ""))
  }

  static func discoveryError(_ relay: String, timeout: Duration = .seconds(5)) async -> PushDescriptorError? {
    do {
      _ = try await PushDiscovery().discover(relay: relay, timeout: timeout)
      return nil
    } catch {
      return error
    }
  }
}
