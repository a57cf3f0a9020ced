import Foundation
import NostrHTTPServer
import Testing

@Suite struct HTTPServerSlowClientTests {
  @Test func closesASilentClientAfterTheIdleTimeoutWhileServingOthers() async throws {
    // Long enough that 20 exchanges finish inside it on a loaded machine (1.19 s was seen with a
    // 1 s timeout while the whole suite ran).
    let configuration = HTTPServerConfiguration(idleTimeout: .seconds(4), headerReadTimeout: .seconds(30))
    try await withServer(configuration, routes: [targetRoute]) { server in
      let port = server.port
      let started = ContinuousClock.now
      // A client that sends half a request line and then nothing.
      let silent = Task {
        await BlockingWork.run { () -> (RawHTTPClient.End?, Duration) in
          guard let client = RawHTTPClient(port: port) else { return (nil, .zero) }
          client.send("GET /tar")
          let end = client.readUntilEnd()
          return (end, ContinuousClock.now - started)
        }
      }
      // Others are served meanwhile, each at once.
      for _ in 0..<20 {
        let response = try await RawHTTPClient.exchange(
          port: port, "GET /target HTTP/1.1\r\nHost: localhost\r\n\r\n"
        ).get()
        #expect(response.status == 200)
      }
      let servedOthersIn = ContinuousClock.now - started
      let (end, closedAfter) = await silent.value
      #expect(end == .closed)
      #expect(closedAfter >= .milliseconds(3_900))
      #expect(servedOthersIn < closedAfter)
    }
  }

  @Test func cutsAClientThatTricklesItsHeadPastTheHeaderReadTimeout() async throws {
    // The idle timeout alone would never fire: a byte arrives every 100 ms.
    let configuration = HTTPServerConfiguration(
      idleTimeout: .seconds(30), headerReadTimeout: .milliseconds(400))
    try await withServer(configuration, routes: [targetRoute]) { server in
      let port = server.port
      let started = ContinuousClock.now
      guard let client = RawHTTPClient(port: port) else {
        Issue.record("connect failed")
        return
      }
      let head = Array(
        "GET /target HTTP/1.1\r\nHost: localhost\r\nX-Slow: \(String(repeating: "s", count: 200))\r\n\r\n"
          .utf8)
      var sentAll = true
      for byte in head {
        // The pace is the behaviour under test, not a synchronisation.
        try await Task.sleep(for: .milliseconds(100))
        if !client.send([byte]) {
          sentAll = false
          break
        }
        if ContinuousClock.now - started > .seconds(20) { break }
      }
      let end = await BlockingWork.run { client.readUntilEnd() }
      let elapsed = ContinuousClock.now - started
      #expect(!sentAll || end == .closed)
      #expect(end == .closed)
      // Well under the 30 s idle timeout, which alone would never fire here.
      #expect(elapsed < .seconds(20))
      #expect(server.headReadTimeoutCuts >= 1)
    }
  }
}

@Suite struct HTTPServerKeepAliveTests {
  @Test func servesSeveralRequestsOnOneConnection() async throws {
    try await withServer(routes: [echoRoute()]) { server in
      let port = server.port
      let bodies = await BlockingWork.run { () -> [String] in
        guard let client = RawHTTPClient(port: port) else { return [] }
        var bodies: [String] = []
        for index in 0..<5 {
          client.send(RawHTTPClient.post("/echo", body: "request \(index)"))
          guard case .success(let response) = client.readResponse() else { break }
          bodies.append(String(decoding: response.body, as: UTF8.self))
        }
        return bodies
      }
      #expect(bodies == (0..<5).map { "request \($0)" })
    }
  }

  @Test func answersPipelinedRequestsInOrder() async throws {
    try await withServer(routes: [echoRoute()]) { server in
      let port = server.port
      let bodies = await BlockingWork.run { () -> [String] in
        guard let client = RawHTTPClient(port: port) else { return [] }
        client.send((0..<3).map { RawHTTPClient.post("/echo", body: "p\($0)") }.joined())
        return (0..<3).compactMap { _ in
          (try? client.readResponse().get()).map { String(decoding: $0.body, as: UTF8.self) }
        }
      }
      #expect(bodies == ["p0", "p1", "p2"])
    }
  }
}
