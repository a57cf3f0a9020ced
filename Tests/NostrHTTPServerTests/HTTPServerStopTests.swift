import Foundation
import NostrHTTPServer
import NostrPushTestSupport
import Testing

/// A gate a test opens once; waiters before and after all pass.
private final class Gate: Sendable {
  private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  func wait() async {
    await withCheckedContinuation { continuation in
      let open = state.withLock { state in
        if state.open { return true }
        state.waiters.append(continuation)
        return false
      }
      if open { continuation.resume() }
    }
  }

  func open() {
    let waiters = state.withLock { state in
      state.open = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}

@Suite struct HTTPServerStopTests {
  @Test func stopWaitsForARunningHandlerAndSendsItsAnswer() async throws {
    let entered = Gate()
    let release = Gate()
    let events = Locked<[String]>([])
    let route = HTTPServerRoute("GET", "/slow") { _ in
      entered.open()
      await release.wait()
      events.withLock { $0.append("handler finished") }
      return .text(status: 200, "done")
    }
    let server = try HTTPServer.start(HTTPServerConfiguration(), router: HTTPServerRouter([route]))
    let port = server.port
    let client = Task {
      await RawHTTPClient.exchange(port: port, "GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n")
    }
    await entered.wait()
    let stopping = Task {
      await server.stop(gracePeriod: .seconds(30))
      events.withLock { $0.append("stop returned") }
    }
    // New connections are refused once the stop began; the running handler keeps going.
    #expect(await Polling.eventually(within: .seconds(10)) { RawHTTPClient(port: port) == nil })
    #expect(events.current.isEmpty)
    release.open()
    let response = try await client.value.get()
    await stopping.value
    #expect(response.status == 200)
    #expect(response.body == Array("done".utf8))
    #expect(events.current == ["handler finished", "stop returned"])
  }

  @Test func stopCancelsAHandlerStillRunningAfterTheGracePeriod() async throws {
    let entered = Gate()
    let route = HTTPServerRoute("GET", "/forever") { _ in
      entered.open()
      do {
        try await Task.sleep(for: .seconds(3600))
        return .text(status: 200, "slept")
      } catch {
        return .text(status: 503, "cancelled")
      }
    }
    let server = try HTTPServer.start(HTTPServerConfiguration(), router: HTTPServerRouter([route]))
    let port = server.port
    let client = Task {
      await RawHTTPClient.exchange(port: port, "GET /forever HTTP/1.1\r\nHost: localhost\r\n\r\n")
    }
    await entered.wait()
    let started = ContinuousClock.now
    await server.stop(gracePeriod: .milliseconds(200))
    #expect(ContinuousClock.now - started >= .milliseconds(200))
    let response = try await client.value.get()
    #expect(response.status == 503)
    #expect(response.body == Array("cancelled".utf8))
  }
}
