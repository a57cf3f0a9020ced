import Foundation
import NostrHTTPServer
import Testing

@Suite struct HTTPServerConcurrencyTests {
  /// Every handler waits until all of them have started: the run only ends if the one
  /// libmicrohttpd thread lets them all run at once.
  @Test func runsManyHandlersAtOnceOnOneServerThread() async throws {
    let count = 64
    let arrived = Locked<(count: Int, waiters: [CheckedContinuation<Void, Never>])>((0, []))
    let route = HTTPServerRoute("POST", "/barrier", maxBodyBytes: 64) { request in
      await withCheckedContinuation { continuation in
        let everyone = arrived.withLock { state -> [CheckedContinuation<Void, Never>] in
          state.count += 1
          state.waiters.append(continuation)
          guard state.count == count else { return [] }
          defer { state.waiters = [] }
          return state.waiters
        }
        for waiter in everyone { waiter.resume() }
      }
      return .json(status: 200, request.body)
    }
    let configuration = HTTPServerConfiguration(maxConnectionsPerIP: count)
    try await withServer(configuration, routes: [route]) { server in
      let port = server.port
      let bodies = await withTaskGroup(of: String?.self) { group in
        for index in 0..<count {
          group.addTask {
            let result = await RawHTTPClient.exchange(
              port: port, RawHTTPClient.post("/barrier", body: "\(index)"))
            return (try? result.get()).map { String(decoding: $0.body, as: UTF8.self) }
          }
        }
        var bodies: [String] = []
        for await body in group { if let body { bodies.append(body) } }
        return bodies
      }
      #expect(Set(bodies) == Set((0..<count).map { "\($0)" }))
    }
  }
}
