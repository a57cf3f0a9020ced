import Foundation
import NostrHTTPServer
import Testing

@Suite struct HTTPServerBoundsTests {
  @Test func answersABodyWithinItsRouteLimit() async throws {
    try await withServer(routes: [echoRoute(maxBodyBytes: 16)]) { server in
      let response = try await RawHTTPClient.exchange(
        port: server.port, RawHTTPClient.post("/echo", body: "0123456789abcdef")
      ).get()
      #expect(response.status == 200)
      #expect(response.body == Array("0123456789abcdef".utf8))
    }
  }

  @Test func refusesAnAnnouncedBodyOverTheRouteLimitWith413() async throws {
    try await withServer(routes: [echoRoute(maxBodyBytes: 16)]) { server in
      let response = try await RawHTTPClient.exchange(
        port: server.port, RawHTTPClient.post("/echo", body: "0123456789abcdefX")
      ).get()
      #expect(response.status == 413)
      #expect(response.body == Array(#"{"error":"payload_too_large"}"#.utf8))
    }
  }

  @Test func refusesAChunkedBodyThatGrowsOverTheLimitWith413() async throws {
    try await withServer(routes: [echoRoute(maxBodyBytes: 16)]) { server in
      let chunk = String(repeating: "a", count: 10)
      let request =
        "POST /echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "a\r\n\(chunk)\r\na\r\n\(chunk)\r\n0\r\n\r\n"
      let response = try await RawHTTPClient.exchange(port: server.port, request).get()
      #expect(response.status == 413)
    }
  }

  @Test func refusesAHeadOverSixteenKibibytesWith431() async throws {
    try await withServer(routes: [targetRoute]) { server in
      let filler = String(repeating: "x", count: 17 * 1024)
      let response = try await RawHTTPClient.exchange(
        port: server.port, "GET /target HTTP/1.1\r\nHost: localhost\r\nX-Filler: \(filler)\r\n\r\n"
      ).get()
      #expect(response.status == 431)
    }
  }

  @Test func answersAHeadJustUnderTheLimit() async throws {
    try await withServer(routes: [targetRoute]) { server in
      let filler = String(repeating: "x", count: 15 * 1024)
      let response = try await RawHTTPClient.exchange(
        port: server.port, "GET /target HTTP/1.1\r\nHost: localhost\r\nX-Filler: \(filler)\r\n\r\n"
      ).get()
      #expect(response.status == 200)
    }
  }

  @Test func refusesAHeadFarOverTheLimitWithoutGrowing() async throws {
    try await withServer(routes: [targetRoute]) { server in
      let filler = String(repeating: "x", count: 256 * 1024)
      let result = await RawHTTPClient.exchange(
        port: server.port, "GET /target HTTP/1.1\r\nHost: localhost\r\nX-Filler: \(filler)\r\n\r\n")
      // libmicrohttpd's per-connection memory limit refuses it before the head is parsed.
      switch result {
      case .success(let response): #expect((400...499).contains(response.status))
      case .failure(let end): #expect(end.end == .closed)
      }
    }
  }

  @Test func answers404And405BeforeReadingTheBody() async throws {
    try await withServer(routes: [echoRoute()]) { server in
      let missing = try await RawHTTPClient.exchange(
        port: server.port, RawHTTPClient.post("/nothing", body: "{}")
      ).get()
      #expect(missing.status == 404)
      let wrongMethod = try await RawHTTPClient.exchange(
        port: server.port, "GET /echo HTTP/1.1\r\nHost: localhost\r\n\r\n"
      ).get()
      #expect(wrongMethod.status == 405)
    }
  }

  @Test func keepsTheRequestTargetByteForByte() async throws {
    try await withServer(routes: [targetRoute]) { server in
      let response = try await RawHTTPClient.exchange(
        port: server.port, "GET /target?u=a%2Fb&x=1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
      ).get()
      #expect(response.status == 200)
      #expect(String(decoding: response.body, as: UTF8.self) == "/target?u=a%2Fb&x=1")
    }
  }
}

@Suite struct HTTPServerConnectionLimitTests {
  @Test func closesAConnectionOverThePerIPLimitWithoutAnAnswer() async throws {
    let configuration = HTTPServerConfiguration(maxConnectionsPerIP: 2)
    try await withServer(configuration, routes: [targetRoute]) { server in
      let port = server.port
      let outcome = await BlockingWork.run { () -> (Int, Int, RawHTTPClient.End?) in
        let request = "GET /target HTTP/1.1\r\nHost: localhost\r\n\r\n"
        guard let first = RawHTTPClient(port: port), let second = RawHTTPClient(port: port) else {
          return (0, 0, nil)
        }
        first.send(request)
        second.send(request)
        let statusA = (try? first.readResponse().get())?.status ?? 0
        let statusB = (try? second.readResponse().get())?.status ?? 0
        // Both are kept alive, so a third from the same address is over the limit.
        guard let third = RawHTTPClient(port: port) else { return (statusA, statusB, .closed) }
        third.send(request)
        let end: RawHTTPClient.End? =
          switch third.readResponse() {
          case .success: nil
          case .failure(let end): end.end
          }
        return (statusA, statusB, end)
      }
      #expect(outcome.0 == 200)
      #expect(outcome.1 == 200)
      #expect(outcome.2 == .closed)
    }
  }

  @Test func holdsAConnectionOverTheTotalLimitUntilAnotherCloses() async throws {
    let configuration = HTTPServerConfiguration(maxConnections: 1, maxConnectionsPerIP: 1)
    try await withServer(configuration, routes: [targetRoute]) { server in
      let port = server.port
      let request = "GET /target HTTP/1.1\r\nHost: localhost\r\n\r\n"
      guard let first = RawHTTPClient(port: port), let second = RawHTTPClient(port: port) else {
        Issue.record("connect failed")
        return
      }
      first.send(request)
      let firstStatus = await BlockingWork.run { (try? first.readResponse().get())?.status }
      #expect(firstStatus == 200)
      // The second waits in the listen backlog: libmicrohttpd does not accept it.
      second.send(request)
      #expect(server.openConnections == 1)
      first.send("GET /target HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
      let closed = await BlockingWork.run { () -> RawHTTPClient.End in
        _ = first.readResponse()
        return first.readUntilEnd()
      }
      #expect(closed == .closed)
      let secondStatus = await BlockingWork.run { (try? second.readResponse().get())?.status }
      #expect(secondStatus == 200)
    }
  }
}
