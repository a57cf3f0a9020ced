import Foundation
import NostrHTTP
import NostrHTTPServer
import NostrPushCore
import PushRelay
import Testing

#if os(Linux)
import NostrCurlHTTP

/// On Linux the relay's `GatewayClient` sends through libcurl by default: a delivery waiting on a
/// gateway that does not answer costs the client's one thread (`getrusage(RUSAGE_THREAD)` read on
/// it before and after the wait) at most 5 % of a core, where URLSession spun one.
@Suite struct GatewayClientDefaultTransportTests {
  @Test func isTheSharedLibcurlClient() throws {
    #expect(GatewayClient.defaultTransport is CurlHTTPClient)
    #expect(try GatewayClient(baseURL: "http://127.0.0.1:9").baseURL == "http://127.0.0.1:9")
  }

  @Test func aDeliveryStalledOnASilentGatewayCostsAtMostFivePercentOfACore() async throws {
    let route = HTTPServerRoute("POST", "/v1/deliveries/apns", maxBodyBytes: 8192) { _ in
      // Answers only when cancelled (the server's stop).
      while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
      return .text(status: 503, "stopped")
    }
    let server = try HTTPServer.start(HTTPServerConfiguration(), router: HTTPServerRouter([route]))
    let client = try #require(GatewayClient.defaultTransport as? CurlHTTPClient)
    let started = ContinuousClock.now
    let deadline = started + .seconds(4)
    let waiting = Task {
      try await client.send(
        HTTPTransportRequest(
          url: "http://127.0.0.1:\(server.port)/v1/deliveries/apns", method: "POST",
          headers: ["Content-Type": "application/json"], body: Array(#"{"v":1}"#.utf8),
          maxResponseBytes: 16_384),
        deadline: deadline)
    }
    // The measured interval: the request waits, nothing is synchronised by it.
    try await Task.sleep(until: started + .milliseconds(500), clock: .continuous)
    let cpuBefore = await client.threadCPUTime()
    let wallBefore = ContinuousClock.now
    try await Task.sleep(until: deadline - .milliseconds(300), clock: .continuous)
    let cpuAfter = await client.threadCPUTime()
    let wall = ContinuousClock.now - wallBefore
    let result = await waiting.result
    await server.stop(gracePeriod: .milliseconds(100))
    #expect((try? result.get()) == nil, "the silent gateway answered")
    #expect(wall >= .seconds(2))
    let share = (cpuAfter - cpuBefore) / wall
    print(
      "GatewayClient default transport: \(cpuAfter - cpuBefore) CPU in \(wall) of waiting (\(share * 100) %)")
    #expect(share <= 0.05, "libcurl's thread used \(cpuAfter - cpuBefore) of CPU in \(wall)")
  }
  /// Over HTTP/1.1 each request in flight needs a connection of its own: 32 deliveries, each held
  /// by the gateway until all 32 have arrived (at most 5 s), are all in flight before the first
  /// is answered (with libcurl's default of a few connections per host they would queue, and the
  /// gateway would see only that many before answering).
  @Test func holdsManyDeliveriesInFlightToOneHTTP1Gateway() async throws {
    let wanted = 32
    let arrived = Locked(0)
    let seenByFirstAnswer = Locked<Int?>(nil)
    let route = HTTPServerRoute("POST", "/v1/deliveries/apns", maxBodyBytes: 8192) { _ in
      arrived.withLock { $0 += 1 }
      let deadline = ContinuousClock.now + .seconds(5)
      while arrived.current < wanted, ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(5))
      }
      seenByFirstAnswer.withLock { $0 = $0 ?? arrived.current }
      return .text(status: 200, #"{"status":"accepted"}"#)
    }
    let server = try HTTPServer.start(
      HTTPServerConfiguration(maxConnectionsPerIP: 1024), router: HTTPServerRouter([route]))
    let client = GatewayClient.defaultTransport
    let statuses = await withTaskGroup(of: Int.self) { group in
      for _ in 0..<wanted {
        group.addTask {
          let response = try? await client.send(
            HTTPTransportRequest(
              url: "http://127.0.0.1:\(server.port)/v1/deliveries/apns", method: "POST",
              headers: ["Content-Type": "application/json"], body: Array(#"{"v":1}"#.utf8),
              maxResponseBytes: 16_384),
            deadline: .now + .seconds(30))
          return response?.status ?? 0
        }
      }
      var all: [Int] = []
      for await status in group { all.append(status) }
      return all
    }
    await server.stop(gracePeriod: .milliseconds(100))
    #expect(statuses == Array(repeating: 200, count: wanted))
    #expect(seenByFirstAnswer.current == wanted, "requests in flight at once")
  }
}
#endif
