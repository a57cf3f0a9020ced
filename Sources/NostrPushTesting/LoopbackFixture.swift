/// A fixture that serves on loopback for a test (the relay, the gateway, a test's world built on
/// them) and must be stopped before the test ends.
///
/// Conform a test's own harness to it to get `serving(_:)`, so every fixture is stopped the same
/// way: awaited, also when the test throws.
public protocol LoopbackFixture {
  /// Stops serving and returns once every socket is closed; safe to call more than once.
  func stop() async
}

extension LoopbackFixture {
  /// Runs `body` while the fixture serves, then stops it — awaited, whether `body` returns or
  /// throws — so a test never leaves a server running behind it.
  public func serving<T>(_ body: () async throws -> T) async rethrows -> T {
    do {
      let result = try await body()
      await stop()
      return result
    } catch {
      await stop()
      throw error
    }
  }
}

extension RelayFixtureServer: LoopbackFixture {}

extension GatewayFixture: LoopbackFixture {}
