import Foundation
import NostrCurlHTTP
import NostrHTTP
import NostrHTTPServer
import Testing

/// The libcurl client through NostrHTTP's seam, over plain HTTP/1.1 to the package's own server.
@Suite struct CurlHTTPTransportTests {
  private static func withEchoServer(_ body: (UInt16) async throws -> Void) async throws {
    let routes = [
      HTTPServerRoute("POST", "/echo", maxBodyBytes: 1 << 20) { request in .json(status: 201, request.body) },
      HTTPServerRoute("GET", "/silent") { _ in
        // Answers only when cancelled (the server's stop).
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        return .text(status: 503, "stopped")
      },
    ]
    let server = try HTTPServer.start(HTTPServerConfiguration(), router: HTTPServerRouter(routes))
    do {
      try await body(server.port)
      await server.stop(gracePeriod: .milliseconds(100))
    } catch {
      await server.stop(gracePeriod: .milliseconds(100))
      throw error
    }
  }

  @Test func postsOverHTTP1ThroughTheSeam() async throws {
    try await Self.withEchoServer { port in
      let client = try CurlHTTPClient()
      defer { Task { await client.shutdown() } }
      let transport: any HTTPTransport = client
      let body = Array(#"{"hello":"world"}"#.utf8)
      let response = try await transport.send(
        HTTPTransportRequest(
          url: "http://127.0.0.1:\(port)/echo", method: "POST", headers: ["Content-Type": "application/json"],
          body: body, maxResponseBytes: 1024),
        deadline: .now + .seconds(10))
      #expect(response.status == 201)
      #expect(response.body == body)
      #expect(response.headers["content-type"] == "application/json")
    }
  }

  @Test func keepsNoBytePastTheCap() async throws {
    try await Self.withEchoServer { port in
      let client = try CurlHTTPClient()
      defer { Task { await client.shutdown() } }
      await #expect(throws: HTTPTransportError(code: .tooLarge, message: "")) {
        _ = try await client.send(
          HTTPTransportRequest(
            url: "http://127.0.0.1:\(port)/echo", method: "POST", body: [UInt8](repeating: 0x61, count: 4096),
            maxResponseBytes: 1000),
          deadline: .now + .seconds(10))
      }
    }
  }

  /// `keepsPrefixPastCap`, as `URLSessionHTTPTransport` honours it: the first `cap` bytes of a
  /// longer body, marked truncated; a body within the cap whole and not marked.
  @Test func keepsTheFirstCapBytesWhenTheRequestKeepsPrefixes() async throws {
    try await Self.withEchoServer { port in
      let client = try CurlHTTPClient()
      defer { Task { await client.shutdown() } }
      let long = (0..<64 * 1024).map { UInt8(0x41 + $0 % 26) }
      let truncated = try await client.send(
        HTTPTransportRequest(
          url: "http://127.0.0.1:\(port)/echo", method: "POST", body: long, maxResponseBytes: 1000,
          keepsPrefixPastCap: true),
        deadline: .now + .seconds(10))
      #expect(truncated.status == 201)
      #expect(truncated.isTruncated)
      #expect(truncated.body == Array(long.prefix(1000)))
      let whole = try await client.send(
        HTTPTransportRequest(
          url: "http://127.0.0.1:\(port)/echo", method: "POST", body: Array(long.prefix(1000)),
          maxResponseBytes: 1000, keepsPrefixPastCap: true),
        deadline: .now + .seconds(10))
      #expect(!whole.isTruncated)
      #expect(whole.body == Array(long.prefix(1000)))
    }
  }

  @Test func failsByTheDeadlineOnAServerThatDoesNotAnswer() async throws {
    try await Self.withEchoServer { port in
      let client = try CurlHTTPClient()
      defer { Task { await client.shutdown() } }
      let started = ContinuousClock.now
      await #expect(throws: HTTPTransportError(code: .timeout, message: "")) {
        _ = try await client.send(
          HTTPTransportRequest(url: "http://127.0.0.1:\(port)/silent", method: "GET", maxResponseBytes: 1000),
          deadline: started + .milliseconds(400))
      }
      #expect(ContinuousClock.now - started < .seconds(3))
    }
  }

  @Test func refusesAnHTTP1AnswerWhenHTTP2IsRequired() async throws {
    try await Self.withEchoServer { port in
      let client = try CurlHTTPClient()
      defer { Task { await client.shutdown() } }
      // Prior knowledge h2 to an HTTP/1.1 server: no HTTP/2 answer comes.
      await #expect(throws: HTTPTransportError.self) {
        _ = try await client.send(
          HTTPTransportRequest(
            url: "http://127.0.0.1:\(port)/echo", method: "POST", body: [1], maxResponseBytes: 1000),
          deadline: .now + .seconds(5), requireHTTP2: true)
      }
    }
  }

  @Test func refusesAURLThatIsNotHTTP() async throws {
    let client = try CurlHTTPClient()
    defer { Task { await client.shutdown() } }
    await #expect(throws: HTTPTransportError(code: .invalidURL, message: "")) {
      _ = try await client.send(
        HTTPTransportRequest(url: "file:///etc/passwd", method: "GET", maxResponseBytes: 10),
        deadline: .now + .seconds(1))
    }
  }
}
