import EnrichmentCache
import NostrEvent
import NostrPushTestSupport
import NostrPushTesting
import NotificationResolver
import Testing

@Suite(.timeLimit(.minutes(2))) struct ResolverFailureTests {
  @Test(arguments: [
    (RelayFault.Action.status(503), FallbackReason.relayError),
    (RelayFault.Action.status(401), FallbackReason.relayError),
    (RelayFault.Action.notJSON, FallbackReason.invalidResponse),
    (RelayFault.Action.truncatedBody, FallbackReason.invalidResponse),
    (RelayFault.Action.oversizedBody(bytes: 2 << 20, declaresLength: true), FallbackReason.invalidResponse),
    (RelayFault.Action.oversizedBody(bytes: 2 << 20, declaresLength: false), FallbackReason.invalidResponse),
    (
      RelayFault.Action.body(status: 200, contentType: "application/json", bytes: Array("{}".utf8)),
      .invalidResponse
    ),
    (
      RelayFault.Action.body(status: 200, contentType: "application/json", bytes: [0x5B, 0xFF, 0x5D]),
      .invalidResponse
    ),
    (RelayFault.Action.body(status: 302, contentType: "text/plain", bytes: []), .relayError),
  ])
  func fallsBackWithTheReason(action: RelayFault.Action, reason: FallbackReason) async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay(
      [scenario.message("hi")], faults: [RelayFault(path: "/query", action: action)])
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let resolution = await scenario.resolve(configuration, cache: nil)
      #expect(resolution.outcome == .fallback(reason))
      #expect(resolution.plan.title == "New message")
      #expect(resolution.plan.body == "Open the app to read it.")
    }
  }

  /// The same wake over one WebSocket: the fixture's `ws` faults act on
  /// the answer to the message `REQ`, and each maps to the reason the spec gives.
  @Test(arguments: [
    (RelayFault.Action.closeConnection, FallbackReason.invalidResponse),
    (RelayFault.Action.truncatedBody, FallbackReason.invalidResponse),
    (RelayFault.Action.delay(milliseconds: 5_000), FallbackReason.timeout),
  ])
  func fallsBackWithTheReasonOverWebSocket(action: RelayFault.Action, reason: FallbackReason) async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay(
      [scenario.message("hi")], faults: [RelayFault(path: "ws", kind: 9, action: action)])
    try await server.serving {
      var configuration = try scenario.configuration(
        server, relayPubkey: true, queryTimeout: .milliseconds(500))
      configuration.queryTransport = .websocket
      let started = ContinuousClock.now
      let resolution = await scenario.resolve(configuration, cache: nil)
      #expect(resolution.outcome == .fallback(reason))
      #expect(ContinuousClock.now - started < .milliseconds(500) + configuration.budget + .seconds(1))
    }
  }

  @Test func resolvesOverWebSocketAndReportsARefusedConnectionAsUnreachable() async throws {
    let scenario = RelayScenario()
    let message = scenario.message("hi")
    let server = try await scenario.startRelay([message] + scenario.enrichmentEvents())
    var configuration = try scenario.configuration(server, relayPubkey: true)
    configuration.queryTransport = .websocket
    let resolved = await scenario.resolve(configuration, cache: nil)
    #expect(resolved.outcome.notification?.target.eventID == message.id)
    #expect(resolved.outcome.notification?.title == "Alice")
    #expect(resolved.outcome.notification?.subtitle == "#general")
    await resolved.lingering.wait()
    await server.stop()
    let refused = await scenario.resolve(configuration, cache: nil)
    #expect(refused.outcome == .fallback(.relayUnreachable))
  }

  /// The extension passes its own expiry: the outcome arrives by then (with the spec's 1 s of
  /// slack), far inside the configured query timeout of 60 s.
  @Test func endsByTheCallersDeadline() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay(
      [scenario.message("hi")], faults: [RelayFault(path: "/query", action: .delay(milliseconds: 5_000))])
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let deadline = ContinuousClock.now + .milliseconds(400)
      let resolution = await NotificationResolver(
        configuration: configuration, cache: nil, clock: .fixed(RelayScenario.now)
      ).resolve(deadline: deadline)
      #expect(resolution.outcome == .fallback(.timeout))
      #expect(ContinuousClock.now < deadline + .seconds(1))
    }
  }

  @Test func endsAtOnceWhenTheCallerIsCancelled() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay(
      [scenario.message("hi")], faults: [RelayFault(path: "/query", action: .delay(milliseconds: 5_000))])
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true)
      let resolving = Task { await scenario.resolve(configuration, cache: nil) }
      // Cancelled once the query is at the relay, which holds its answer 5 s.
      #expect(await Polling.eventually(within: .seconds(5)) { server.requestCount(path: "/query") > 0 })
      let cancelled = ContinuousClock.now
      resolving.cancel()
      let resolution = await resolving.value
      #expect(resolution.outcome == .fallback(.timeout))
      // A cancelled resolve must not wait for the relay's answer.
      #expect(ContinuousClock.now - cancelled < .seconds(3))
    }
  }

  @Test func reportsARefusedConnectionAsUnreachable() async throws {
    let scenario = RelayScenario()
    let server = try await scenario.startRelay([])
    let origin = server.origin!
    await server.stop()
    let configuration = try ResolverConfiguration(
      relay: RelayOrigin(origin), secretKey: scenario.account)
    let resolution = await NotificationResolver(
      configuration: configuration, cache: nil, clock: .fixed(RelayScenario.now)
    )
    .resolve()
    #expect(resolution.outcome == .fallback(.relayUnreachable))
  }

  @Test func reportsNoEligibleEventForOwnFutureBlankOrUnrequestedMessages() async throws {
    let scenario = RelayScenario()
    let own = scenario.message("mine", from: scenario.account)
    let future = scenario.message("later", createdAt: RelayScenario.now + 301)
    let blank = scenario.message(" \n\t ")
    let wrongKind = scenario.sign(
      scenario.sender, kind: 1, content: "note", tags: [["p", scenario.account.publicKeyHex]])
    let server = try await scenario.startRelay([own, future, blank, wrongKind])
    try await server.serving {
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true), cache: nil)
      #expect(resolution.outcome == .nothingNew(.noEligibleEvent, suppress: false))
    }
  }

  @Test func acceptsAMessageUpToFiveMinutesAhead() async throws {
    let scenario = RelayScenario()
    let ahead = scenario.message("soon", createdAt: RelayScenario.now + 300)
    let server = try await scenario.startRelay([ahead])
    try await server.serving {
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true), cache: nil)
      #expect(resolution.outcome.notification?.target.eventID == ahead.id)
    }
  }

  @Test func reportsARemovedAccount() async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let server = try await scenario.startRelay([scenario.message("hi")])
    try await server.serving {
      let cache = try folder.cache()
      try cache.removeAccount(scenario.account.publicKeyHex, now: RelayScenario.now)
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true), cache: cache)
      #expect(resolution.outcome == .fallback(.accountRemoved))
      #expect(server.requestCount(path: "/query") == 0)
    }
  }
}
