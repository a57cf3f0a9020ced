import Foundation
import NostrHTTP
import NostrJSON
import NostrPushCore
import PushDescriptor
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A caller-supplied transport that answers from memory, after an optional wait that ignores the
/// deadline (a misbehaving transport, which discovery must still cut off).
struct CannedTransport: HTTPTransport {
  var response: HTTPTransportResponse
  var wait: Duration = .zero
  let requests = RequestLog()

  func send(_ request: HTTPTransportRequest, deadline: ContinuousClock.Instant)
    async throws(HTTPTransportError)
    -> HTTPTransportResponse
  {
    requests.append(request)
    // Not a wait for anything: the slow transport is the behaviour under test.
    if wait > .zero { try? await Task.sleep(for: wait) }
    return response
  }
}

/// The requests a `CannedTransport` saw.
final class RequestLog: Sendable {
  private let requests = Locked<[HTTPTransportRequest]>([])
  func append(_ request: HTTPTransportRequest) { requests.withLock { $0.append(request) } }
  var all: [HTTPTransportRequest] { requests.withLock { $0 } }
}

@Suite struct RelayInformationTransportTests {
  @Test func usesACallerSuppliedTransport() async throws {
    let transport = CannedTransport(
      response: HTTPTransportResponse(status: 200, body: TestSupport.bytes(TestSupport.document)))
    let document = try await PushDiscovery(transport: transport).discover(relay: "wss://push.example")
    #expect(document.push == TestSupport.descriptor)
    let request = try #require(transport.requests.all.first)
    #expect(request.url == "https://push.example/")
    #expect(request.method == "GET")
    #expect(request.headers["Accept"] == "application/nostr+json")
    #expect(request.maxResponseBytes == PushDiscovery.maxBodyBytes)
  }

  @Test func enforcesTheDeadlineOnACallerSuppliedTransport() async throws {
    let transport = CannedTransport(
      response: HTTPTransportResponse(status: 200, body: TestSupport.bytes(TestSupport.document)),
      wait: .seconds(30))
    let start = ContinuousClock.now
    await #expect(throws: PushDescriptorError(code: .transport, field: "http", message: "")) {
      try await PushDiscovery(transport: transport).discover(
        relay: "wss://push.example", timeout: .milliseconds(200))
    }
    #expect(ContinuousClock.now - start < .seconds(10))
  }

  @Test func refusesADeadlineThatHasPassed() async throws {
    let transport = CannedTransport(
      response: HTTPTransportResponse(status: 200, body: TestSupport.bytes(TestSupport.document)))
    await #expect(throws: PushDescriptorError(code: .transport, field: "http", message: "")) {
      try await PushDiscovery(transport: transport).discover(
        relay: "wss://push.example", deadline: .now - .seconds(1))
    }
    #expect(transport.requests.all.isEmpty)
  }

  @Test func refusesAnOversizedBodyFromACallerSuppliedTransport() async throws {
    let body = [UInt8](repeating: 0x20, count: PushDiscovery.maxBodyBytes + 1)
    let transport = CannedTransport(response: HTTPTransportResponse(status: 200, body: body))
    await #expect(throws: PushDescriptorError(code: .transport, field: "http", message: "")) {
      try await PushDiscovery(transport: transport).discover(relay: "wss://push.example")
    }
  }
}
