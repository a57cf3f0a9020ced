import Foundation
import NostrEvent
import NostrHTTP
import NostrPushTestSupport
import NostrPushTesting
import PushLease
import PushRelay
import Testing

/// The worker's reaction to every gateway answer, with the attempts and times of `Docs/VendoringPushRelay.md`,
/// against the real gateway fixture over loopback and a real SQLite file on a manual clock.
@Suite(.timeLimit(.minutes(1))) struct DeliveryWorkerTests {
  static let token = "a1b2c3d4"

  @Test(.enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipNote))
  func runsThePostgreSQLCasesToo() {
    #expect(StoreBackend.available == [.sqlite, .postgres])
  }

  /// Enrolls the account with a real grant and publishes one mention; returns the wake.
  @discardableResult
  static func wake(in world: PushWorld, d: InstallationID = .generate(), generation: Int64 = 1) throws -> Wake
  {
    let grant = try world.grant(token: token)
    let answer = try world.publish(lease: Demo.lease(endpoint: grant, generation: generation, d: d))
    #expect(answer.accepted)
    try world.publish(world.mention())
    return try world.onlyWake()
  }

  @Test(arguments: StoreBackend.available) func deliversOnceWithTheSignedExactRequest(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let wake = try Self.wake(in: world)
      let attempts = try await world.worker.runOnce()
      #expect(attempts.map(\.answer) == [.accepted])
      #expect(attempts.map(\.recorded) == [true])
      let row = try world.onlyWake()
      #expect(row.state == .delivered && row.attempts == 1 && row.lastStatus == 200)
      let delivery = try #require(world.gateway.deliveries().first)
      #expect(delivery.requestID == wake.requestID)
      #expect(delivery.deviceToken == Self.token)
      #expect(delivery.relayPubkey == Demo.relayKey.publicKeyHex)
      #expect(delivery.headers["apns-expiration"] == String(wake.candidate.expiresAt))
      #expect(try await world.worker.runOnce().isEmpty)
      #expect(world.gateway.requests().count == 1)
    }
  }

  @Test(arguments: StoreBackend.available) func deliversFromItsOwnTaskUntilCancelled(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let wake = try Self.wake(in: world)
      let worker = world.worker!
      let running = Task { await worker.run() }
      let delivered = await Polling.eventually(within: .seconds(20)) {
        (try? world.onlyWake().state) == .delivered
      }
      running.cancel()
      await running.value
      #expect(delivered)
      #expect(world.gateway.deliveries().map(\.requestID) == [wake.requestID])
      #expect(try world.onlyWake().state == .delivered)
    }
  }

  @Test func buildsTheExactCompactBody() {
    let body = GatewayClient.body(
      endpointGrant: "g\"\\\n", requestID: "0a1b2c3d-0000-4000-8000-000000000000", expiresAt: 17)
    #expect(
      String(decoding: body, as: UTF8.self)
        == #"{"v":1,"endpoint_grant":"g\"\\\n","request_id":"0a1b2c3d-0000-4000-8000-000000000000","expires_at":17}"#
    )
  }

  /// A final answer on the first attempt: the state it leaves and whether the lease stays enabled.
  struct FinalCase: Sendable, CustomTestStringConvertible {
    var status: Int
    var body: String?
    var state: WakeState
    var testDescription: String { "\(status) \(body ?? "(default)") → \(state)" }
  }

  @Test(arguments: [
    FinalCase(status: 202, body: #"{"status":"accepted"}"#, state: .delivered),
    FinalCase(status: 200, body: "{}", state: .failed),
    FinalCase(status: 200, body: "accepted", state: .failed),
    FinalCase(status: 400, body: nil, state: .failed),
    FinalCase(status: 401, body: nil, state: .failed),
    FinalCase(status: 404, body: nil, state: .failed),
    FinalCase(status: 404, body: #"{"error":"unsupported_transport"}"#, state: .failed),
    FinalCase(status: 410, body: #"{"error":"gone"}"#, state: .failed),
    FinalCase(status: 302, body: "", state: .failed),
    FinalCase(status: 500, body: nil, state: .failed),
  ])
  func endsTheWakeOnAFinalAnswer(final: FinalCase) async throws {
    try await withStarted(try await PushWorld()) { world in
      try Self.wake(in: world)
      world.gateway.script([GatewayScriptEntry(status: final.status, body: final.body)])
      let attempts = try await world.worker.runOnce()
      #expect(attempts.map(\.recorded) == [true])
      let row = try world.onlyWake()
      #expect(row.state == final.state)
      #expect(row.attempts == 1)
      #expect(row.lastStatus == final.status)
      #expect(try world.store.liveLeases(origin: Demo.origin, now: world.clock.seconds).count == 1)
      world.clock.advance(by: .seconds(3600))
      #expect(try await world.worker.runOnce().isEmpty)
    }
  }

  /// A retried answer: the delay before attempt 2 and before attempt 3, in ms.
  struct RetryCase: Sendable, CustomTestStringConvertible {
    var status: Int
    var body: String?
    var first: Int64
    var testDescription: String { "\(status) \(body ?? "(default)") → \(first) ms" }
  }

  @Test(arguments: [
    RetryCase(status: 503, body: nil, first: 2000),
    RetryCase(status: 503, body: #"{"status":"retry","retry_after_seconds":5}"#, first: 5000),
    RetryCase(status: 503, body: #"{"retry_after_seconds":0}"#, first: 2000),
    RetryCase(status: 503, body: #"{"retry_after_seconds":1.5}"#, first: 2000),
    RetryCase(status: 503, body: "<html>busy</html>", first: 2000),
    RetryCase(status: 429, body: nil, first: 2000),
    RetryCase(status: 429, body: #"{"status":"rate_limited","retry_after_seconds":7}"#, first: 7000),
  ])
  func retriesWithTheSameRequestIDAfterTheBackoff(retry: RetryCase) async throws {
    try await withStarted(try await PushWorld()) { world in
      let wake = try Self.wake(in: world)
      world.gateway.script([GatewayScriptEntry(status: retry.status, body: retry.body, times: 2)])
      let start = world.clock.milliseconds
      #expect(try await world.worker.runOnce().map(\.outcome).count == 1)
      var row = try world.onlyWake()
      #expect(row.state == .pending && row.attempts == 1)
      #expect(row.nextAttemptMilliseconds == start + retry.first)
      world.clock.advance(by: .milliseconds(retry.first - 1))
      #expect(try await world.worker.runOnce().isEmpty)
      world.clock.advance(by: .milliseconds(1))
      #expect(try await world.worker.runOnce().map(\.attempt) == [2])
      row = try world.onlyWake()
      #expect(row.attempts == 2)
      #expect(row.nextAttemptMilliseconds == start + retry.first + 2 * retry.first)
      world.clock.advance(by: .milliseconds(2 * retry.first))
      #expect(try await world.worker.runOnce().map(\.answer) == [.accepted])
      #expect(world.gateway.requests().map(\.requestID) == Array(repeating: wake.requestID, count: 3))
      #expect(world.gateway.deliveries().map(\.requestID) == [wake.requestID])
      #expect(try world.onlyWake().state == .delivered)
    }
  }

  @Test(arguments: StoreBackend.available) func capsRetryAfterSecondsAt3600(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      try Self.wake(in: world)
      world.gateway.script([GatewayScriptEntry(status: 503, body: #"{"retry_after_seconds":7200}"#)])
      try await world.worker.runOnce()
      let row = try world.onlyWake()
      #expect(row.state == .pending)
      #expect(row.nextAttemptMilliseconds == world.clock.milliseconds + 3_600_000)
    }
  }

  @Test(arguments: StoreBackend.available) func failsAfterTheEighthAttemptWithDoublingDelays(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      try Self.wake(in: world)
      world.gateway.script([GatewayScriptEntry(status: 503, times: 8)])
      var delays: [Int64] = []
      for attempt in 1...8 {
        let before = world.clock.milliseconds
        #expect(try await world.worker.runOnce().map(\.attempt) == [attempt])
        let row = try world.onlyWake()
        if attempt < 8 {
          delays.append(row.nextAttemptMilliseconds - before)
          world.clock.advance(by: .milliseconds(row.nextAttemptMilliseconds - before))
        } else {
          #expect(row.state == .failed)
        }
      }
      #expect(delays == [2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000])
      world.clock.advance(by: .seconds(256))
      #expect(try await world.worker.runOnce().isEmpty)
      #expect(world.gateway.requests().count == 8)
    }
  }

  @Test func retriesATimeoutAndCountsALater404AsDelivered() async throws {
    // The client's timeout must also cover the second, immediate answer on a loaded machine.
    try await withStarted(try await PushWorld(timeout: .seconds(1))) { world in
      let wake = try Self.wake(in: world)
      world.gateway.script([GatewayScriptEntry(status: 200, delayMilliseconds: 3000)])
      let first = try await world.worker.runOnce()
      guard case .unreachable = first.first?.answer else {
        Issue.record("expected a timeout, got \(first)")
        return
      }
      #expect(try world.onlyWake().state == .pending)
      world.clock.advance(by: .seconds(2))
      // The gateway had answered the first attempt (after the client gave up): the id is kept.
      let second = try await world.worker.runOnce()
      #expect(second.map(\.answer) == [.notFound])
      #expect(try world.onlyWake().state == .delivered)
      #expect(world.gateway.deliveries().map(\.requestID) == [wake.requestID])
    }
  }

  @Test(arguments: StoreBackend.available) func retriesARefusedConnection(backend: StoreBackend) async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      try Self.wake(in: world)
      await world.gateway.stop()
      let attempts = try await world.worker.runOnce()
      guard case .unreachable = attempts.first?.answer else {
        Issue.record("expected a refused connection, got \(attempts)")
        return
      }
      let row = try world.onlyWake()
      #expect(row.state == .pending && row.lastStatus == nil)
      #expect(row.nextAttemptMilliseconds == world.clock.milliseconds + 2000)
    }
  }

  @Test(arguments: [
    (nil as String?, WakeState.delivered), (#"{"error":"unsupported_transport"}"#, WakeState.failed),
  ])
  func treatsA404AfterTheFirstAttemptByItsBody(body: String?, state: WakeState) async throws {
    try await withStarted(try await PushWorld()) { world in
      try Self.wake(in: world)
      world.gateway.script([GatewayScriptEntry(status: 503), GatewayScriptEntry(status: 404, body: body)])
      try await world.worker.runOnce()
      world.clock.advance(by: .seconds(2))
      #expect(try await world.worker.runOnce().map(\.attempt) == [2])
      #expect(try world.onlyWake().state == state)
    }
  }

  @Test(arguments: [nil, #"{"status":"invalid_endpoint","generation":99,"invalid_at":null}"#])
  func disablesTheWakesLeaseOnA410(body: String?) async throws {
    try await withStarted(try await PushWorld()) { world in
      let wake = try Self.wake(in: world)
      world.gateway.script([GatewayScriptEntry(status: 410, body: body)])
      let attempts = try await world.worker.runOnce()
      guard case .invalidEndpoint = attempts.first?.answer else {
        Issue.record("expected a 410, got \(attempts)")
        return
      }
      #expect(try world.onlyWake().state == .failed)
      let row = try #require(try world.store.lease(at: wake.candidate.address))
      #expect(!row.endpointEnabled && row.active)
      #expect(try world.store.liveLeases(origin: Demo.origin, now: world.clock.seconds).isEmpty)
      try world.publish(world.mention(offset: 1))
      #expect(try world.outbox.wakes().count == 1)
    }
  }

  @Test(arguments: StoreBackend.available) func ignoresALate410AfterTheLeaseMovedToTheNextGeneration(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let d = InstallationID.generate()
      let wake = try Self.wake(in: world, d: d)
      world.gateway.script([GatewayScriptEntry(status: 410, delayMilliseconds: 800)])
      let worker = world.worker!
      let sending = Task { try await worker.runOnce() }
      #expect(await Polling.eventually(within: .seconds(10)) { !world.gateway.requests().isEmpty })
      let next = Demo.lease(
        endpoint: wake.candidate.endpoint, generation: 2, createdAt: Demo.now + 1, d: d, now: Demo.now + 1)
      #expect(try world.publish(lease: next).accepted)
      let attempts = try await sending.value
      guard case .invalidEndpoint = attempts.first?.answer else {
        Issue.record("expected a 410, got \(attempts)")
        return
      }
      let row = try #require(try world.store.lease(at: wake.candidate.address))
      #expect(row.generation == 2 && row.endpointEnabled)
      #expect(
        try world.store.liveLeases(origin: Demo.origin, now: world.clock.seconds).map(\.generation) == [2])
    }
  }

  @Test(arguments: StoreBackend.available) func sendsNothingWhenTheLeaseWasRevoked(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let d = InstallationID.generate()
      try Self.wake(in: world, d: d)
      try world.publish(
        lease: Demo.tombstone(generation: 2, createdAt: Demo.now + 1, d: d, now: Demo.now + 1))
      let attempts = try await world.worker.runOnce()
      #expect(attempts.map(\.answer) == [nil])
      #expect(try world.onlyWake().state == .failed)
      #expect(world.gateway.requests().isEmpty)
    }
  }

  @Test(arguments: StoreBackend.available) func sendsNothingForAnOlderGenerationOrAnExpiredLease(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let d = InstallationID.generate()
      try Self.wake(in: world, d: d)
      let next = Demo.lease(
        endpoint: try world.grant(token: "ffff"), generation: 2, createdAt: Demo.now + 1, d: d,
        now: Demo.now + 1)
      // The new lease is back-filled with the recent mention on its own endpoint ("ffff"); the
      // generation-1 wake, re-checked at send time, sends nothing.
      let old = try world.onlyWake()
      try world.publish(lease: next)
      let attempts = try await world.worker.runOnce()
      #expect(attempts.first { $0.requestID == old.requestID }?.answer == .some(nil))
      #expect(!world.gateway.requests().contains { $0.requestID == old.requestID })
    }
  }

  @Test(arguments: StoreBackend.available) func sendsNothingWhenTheOwnerLeftTheChannel(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      try world.publish(lease: Demo.lease(endpoint: try world.grant(), generation: 1, d: .generate()))
      try world.publish(Demo.event(tags: [["h", Demo.channel]]))
      #expect(try world.onlyWake().candidate.channel == Demo.channel)
      world.roster.set(Demo.channel, [Demo.alice.publicKeyHex])
      #expect(try await world.worker.runOnce().map(\.answer) == [nil])
      #expect(try world.onlyWake().state == .failed)
      #expect(world.gateway.requests().isEmpty)
    }
  }

  @Test(arguments: StoreBackend.available) func readsNoMoreThan16KiBOfAnAnswer(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      try Self.wake(in: world)
      let padding = String(repeating: "x", count: GatewayClient.maxResponseBytes)
      world.gateway.script([
        GatewayScriptEntry(status: 200, body: #"{"status":"accepted","pad":"\#(padding)"}"#)
      ])
      #expect(try await world.worker.runOnce().map(\.answer) == [.unexpectedSuccess(status: 200)])
      #expect(try world.onlyWake().state == .failed)
    }
  }

  // MARK: The outbox on its own

  @Test(arguments: StoreBackend.available) func reclaimsAFencedOutWakeAndRefusesTheStaleClaimsOutcome(
    backend: StoreBackend
  ) async throws {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      let wake = try Self.wake(in: world)
      let now = world.clock.milliseconds
      let first = try world.outbox.claim(nowMilliseconds: now, limit: 16)
      #expect(first.map(\.requestID) == [wake.requestID])
      #expect(first.first?.fenceMilliseconds == now + 30_000)
      #expect(try world.outbox.claim(nowMilliseconds: now + 29_999, limit: 16).isEmpty)
      #expect(try !world.outbox.record(.delivered, for: first[0], status: 200, nowMilliseconds: now + 30_000))
      let second = try world.outbox.claim(nowMilliseconds: now + 30_000, limit: 16)
      #expect(second.map(\.requestID) == [wake.requestID])
      #expect(second.map(\.attempts) == [2])
      #expect(try !world.outbox.record(.delivered, for: first[0], status: 200, nowMilliseconds: now + 30_001))
      #expect(try world.outbox.record(.delivered, for: second[0], status: 200, nowMilliseconds: now + 30_001))
      #expect(try world.onlyWake().state == .delivered)
    }
  }

  @Test func failsAFencedOutWakeAtTheLastAttempt() throws {
    let path = Demo.temporaryPath()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let outbox = SQLiteWakeOutbox(database: try PushStateDatabase(path: path))
    let candidate = PushMatcherTests.wakes(
      Demo.event(tags: [["h", PushMatcherTests.channel], ["p", PushMatcherTests.me]]),
      [PushMatcherTests.lease([PushMatcherTests.mentions])])
    _ = try outbox.enqueue(candidate, nowMilliseconds: Demo.now * 1000)
    var now = Demo.now * 1000
    for _ in 1...8 {
      #expect(try outbox.claim(nowMilliseconds: now, limit: 16).count == 1)
      now += 30_000
    }
    #expect(try outbox.claim(nowMilliseconds: now, limit: 16).isEmpty)
    #expect(try outbox.wakes().map(\.state) == [.failed])
  }

  @Test func claimsAtMost16EarliestFirst() throws {
    let path = Demo.temporaryPath()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let outbox = SQLiteWakeOutbox(database: try PushStateDatabase(path: path))
    var ids: [String] = []
    for offset in 0..<20 {
      let event = Demo.event(
        createdAt: Demo.now - Int64(offset),
        tags: [["h", PushMatcherTests.channel], ["p", PushMatcherTests.me]])
      let candidates = PushMatcherTests.wakes(event, [PushMatcherTests.lease([PushMatcherTests.mentions])])
      ids += try outbox.enqueue(candidates, nowMilliseconds: Demo.now * 1000 - 100 + Int64(offset))
    }
    let first = try outbox.claim(nowMilliseconds: Demo.now * 1000, limit: 16)
    #expect(first.map(\.requestID) == Array(ids.prefix(16)))
    #expect(
      try outbox.claim(nowMilliseconds: Demo.now * 1000, limit: 16).map(\.requestID) == Array(ids.suffix(4)))
  }

  @Test(arguments: StoreBackend.available) func failsAnExpiredWakeAndDropsItAnHourLater(backend: StoreBackend)
    async throws
  {
    try await withStarted(try await PushWorld(backend: backend)) { world in
      try world.publish(lease: Demo.lease(endpoint: try world.grant(), generation: 1, d: .generate()))
      try world.publish(world.mention(offset: -3590))
      let wake = try world.onlyWake()
      #expect(wake.candidate.expiresAt == Demo.now + 10)
      world.clock.advance(by: .seconds(10))
      #expect(try await world.worker.runOnce().isEmpty)
      #expect(try world.onlyWake().state == .failed)
      world.clock.advance(by: .seconds(3599))
      #expect(try world.outbox.sweep(nowMilliseconds: world.clock.milliseconds) == 0)
      world.clock.advance(by: .seconds(1))
      #expect(try world.outbox.sweep(nowMilliseconds: world.clock.milliseconds) == 1)
      #expect(try world.outbox.wakes().isEmpty)
      #expect(world.gateway.requests().isEmpty)
    }
  }

  // MARK: Configuration

  @Test(arguments: [
    "http://gateway.example", "ftp://127.0.0.1", "https://gw.example/", "https://gw.example/v1",
    "https://gw.example?x",
    "https://user@gw.example", "https://gw.example:0", "https://gw.example:99999", "https://", "gw.example",
  ])
  func refusesABaseURLThatIsNotJustSchemeHostAndPort(base: String) {
    #expect(throws: PushRelayError(code: .invalidConfiguration, field: "gateway", message: "")) {
      try GatewayClient(baseURL: base, transport: URLSessionHTTPTransport())
    }
  }

  @Test(arguments: [
    "https://gw.example", "https://gw.example:8443", "http://127.0.0.1:9000", "http://gw.localhost:1",
    "http://[::1]:80",
  ])
  func acceptsAnHTTPSOrLoopbackHTTPBase(base: String) throws {
    #expect(
      try GatewayClient(baseURL: base, transport: URLSessionHTTPTransport()).deliveryURL(transport: "apns")
        == base + "/v1/deliveries/apns")
  }

  @Test(arguments: [99, 10_001])
  func refusesATimeoutOutside100To10000Milliseconds(milliseconds: Int) {
    #expect(throws: PushRelayError(code: .invalidConfiguration, field: "gateway_timeout_ms", message: "")) {
      try GatewayClient(
        baseURL: "https://gw.example", transport: URLSessionHTTPTransport(),
        timeout: .milliseconds(milliseconds))
    }
  }
}
