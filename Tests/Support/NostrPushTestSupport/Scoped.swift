import NostrPushTesting

/// Runs `body` with the fixture `start` makes, then awaits the fixture's `stop()`, whether
/// `body` returns or throws.
///
/// The scoped form of every test fixture (a relay, a gateway, a test's world of them): the test
/// cannot end with a server still running, as it can when a `defer` stops it in a detached task.
public func withStarted<Fixture: LoopbackFixture, T>(
  _ start: @autoclosure () async throws -> Fixture, _ body: (Fixture) async throws -> T
) async throws -> T {
  let fixture = try await start()
  return try await fixture.serving { try await body(fixture) }
}

/// Starts a fixture relay on `data` and `configuration`, runs `body` with it, then awaits its
/// `stop()`, whether `body` (or the start) throws or not.
///
/// For tests that need a plain relay for their whole body; `relay.origin` is its base URL.
public func withRelay<T>(
  _ data: RelayFixtureData = RelayFixtureData(),
  configuration: RelayFixtureConfiguration = RelayFixtureConfiguration(),
  _ body: (RelayFixtureServer) async throws -> T
) async throws -> T {
  let relay = RelayFixtureServer(data: data, configuration: configuration)
  return try await relay.serving {
    try await relay.start()
    return try await body(relay)
  }
}

/// Starts a gateway fixture, runs `body` with it, then awaits its `stop()`, whether `body` (or
/// the start) throws or not.
///
/// For tests that deliver to a gateway for their whole body; `gateway.baseURL` is its base URL.
public func withGateway<T>(
  _ configuration: GatewayFixtureConfiguration = GatewayFixtureConfiguration(),
  clock: (@Sendable () -> Int64)? = nil, _ body: (GatewayFixture) async throws -> T
) async throws -> T {
  let gateway = try GatewayFixture(configuration: configuration, clock: clock)
  return try await gateway.serving {
    try await gateway.start()
    return try await body(gateway)
  }
}
