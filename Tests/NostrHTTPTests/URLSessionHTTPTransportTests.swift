import NostrHTTP
import NostrPushTestSupport
import Testing

/// The default transport against a raw loopback server: the cap, the deadline, redirects and
/// content codings, each as a user of the transport would meet them.
@Suite(.timeLimit(.minutes(1))) struct URLSessionHTTPTransportTests {
  /// `["hello","gzip"]` compressed by `gzip.compress(…, mtime=0)` (Python), 36 bytes.
  static let gzipBody: [UInt8] = [
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x8b, 0x56, 0xca, 0x48, 0xcd, 0xc9, 0xc9,
    0x57,
    0xd2, 0x51, 0x4a, 0xaf, 0xca, 0x2c, 0x50, 0x8a, 0x05, 0x00, 0xef, 0x2c, 0x80, 0xf9, 0x10, 0x00, 0x00,
    0x00,
  ]

  func send(
    _ reply: LoopbackHTTPResponder.Reply, cap: Int = 1024, keepsPrefix: Bool = false,
    within timeout: Duration = .seconds(10)
  )
    async throws -> (Result<HTTPTransportResponse, HTTPTransportError>, LoopbackHTTPResponder)
  {
    let server = try LoopbackHTTPResponder(reply)
    let request = HTTPTransportRequest(
      url: server.baseURL + "/query", method: "GET", maxResponseBytes: cap, keepsPrefixPastCap: keepsPrefix)
    do throws(HTTPTransportError) {
      let response = try await URLSessionHTTPTransport.shared.send(request, deadline: .now + timeout)
      server.stop()
      return (.success(response), server)
    } catch {
      server.stop()
      return (.failure(error), server)
    }
  }

  @Test func asksForTheIdentityEncoding() async throws {
    let (result, server) = try await send(.init(body: Array("[]".utf8)))
    #expect(try result.get().body == Array("[]".utf8))
    let head = try #require(server.receivedRequests.first).lowercased()
    #expect(head.contains("accept-encoding: identity"))
  }

  /// A server that compresses anyway: `Content-Length` counts the 36 compressed bytes, the body
  /// arrives decoded, and the exchange is accepted instead of failing as truncated.
  @Test func acceptsAGzipAnswerAndDecodesIt() async throws {
    let (result, _) = try await send(
      .init(headers: ["Content-Type: application/json", "Content-Encoding: gzip"], body: Self.gzipBody))
    let response = try result.get()
    #expect(response.status == 200)
    #expect(String(decoding: response.body, as: UTF8.self) == #"["hello","gzip"]"#)
  }

  @Test func refusesABodyOverTheCapAnnouncedByContentLength() async throws {
    let (result, _) = try await send(.init(body: [UInt8](repeating: 0x20, count: 2048)), cap: 1024)
    #expect(throws: HTTPTransportError(code: .tooLarge, message: "")) { try result.get() }
  }

  @Test func refusesABodyOverTheCapWithoutContentLength() async throws {
    let (result, _) = try await send(
      .init(body: [UInt8](repeating: 0x20, count: 4096), declaresLength: false), cap: 1024)
    #expect(throws: HTTPTransportError(code: .tooLarge, message: "")) { try result.get() }
  }

  /// A distinct byte at every position, so a prefix from anywhere else cannot pass.
  static let countingBody: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 251) }

  /// A caller that keeps the prefix gets the first cap bytes, marked truncated, when
  /// `Content-Length` announces more than the cap.
  @Test func keepsThePrefixPastTheCapAnnouncedByContentLength() async throws {
    let (result, _) = try await send(.init(body: Self.countingBody), cap: 100_000, keepsPrefix: true)
    let response = try result.get()
    #expect(response.status == 200)
    #expect(response.isTruncated)
    #expect(response.body == Array(Self.countingBody.prefix(100_000)))
  }

  /// The same without `Content-Length`: the body ends at the cap, not at the connection's close.
  @Test func keepsThePrefixPastTheCapWithoutContentLength() async throws {
    let (result, _) = try await send(
      .init(body: Self.countingBody, declaresLength: false), cap: 100_000, keepsPrefix: true)
    let response = try result.get()
    #expect(response.isTruncated)
    #expect(response.body == Array(Self.countingBody.prefix(100_000)))
  }

  /// A connection that ends before the announced length: without prefixes that is `truncated`;
  /// a caller that keeps prefixes gets the bytes that arrived, marked truncated.
  @Test func keepsWhatArrivedWhenTheConnectionEndsShort() async throws {
    let body = Array(Self.countingBody.prefix(3000))
    let reply = LoopbackHTTPResponder.Reply(
      headers: ["Content-Type: application/json", "Content-Length: 5000"], body: body, declaresLength: false)
    let (refused, _) = try await send(reply, cap: 100_000)
    #expect(throws: HTTPTransportError(code: .truncated, message: "")) { try refused.get() }
    let (kept, _) = try await send(reply, cap: 100_000, keepsPrefix: true)
    let response = try kept.get()
    #expect(response.isTruncated)
    #expect(response.body == body)
  }

  /// A body within the cap arrives whole and is not marked truncated, whether or not the caller
  /// keeps prefixes; exactly the cap is still whole.
  @Test(arguments: [false, true])
  func deliversABodyOfExactlyTheCapWhole(declaresLength: Bool) async throws {
    let body = Array(Self.countingBody.prefix(4096))
    let (result, _) = try await send(
      .init(body: body, declaresLength: declaresLength), cap: 4096, keepsPrefix: true)
    let response = try result.get()
    #expect(!response.isTruncated)
    #expect(response.body == body)
  }

  @Test func returnsARedirectAsItIsWithoutFollowingIt() async throws {
    let (result, server) = try await send(.init(status: 302, headers: ["Location: http://127.0.0.1:1/"]))
    #expect(try result.get().status == 302)
    #expect(server.receivedRequests.count == 1)
  }

  @Test func endsAtTheDeadlineWithTimeout() async throws {
    let started = ContinuousClock.now
    let (result, _) = try await send(
      .init(body: Array("[]".utf8), delay: .seconds(20)), within: .milliseconds(300))
    #expect(throws: HTTPTransportError(code: .timeout, message: "")) { try result.get() }
    // The deadline promise: over by the deadline plus the 1 s of slack the resolver's spec allows
    // a whole wake (the answer is held for 20 s, so a missed deadline still fails this).
    #expect(ContinuousClock.now - started < .milliseconds(300) + .seconds(1))
  }
}
