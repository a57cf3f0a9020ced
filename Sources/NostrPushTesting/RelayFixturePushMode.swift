import NostrEvent
import PushRelay

/// The fixture relay's push mode (`Docs/VendoringPushRelay.md`): the push key it opens leases with, and
/// optionally the gateway its in-process delivery worker sends wakes to.
///
/// A relay with a push mode calls one `PushRelay` for everything push: it ingests kind 30350
/// through it, hands it every event stored over a bridge (matched into a SQLite wake outbox), and,
/// with `gatewayURL`, runs its delivery worker.
/// Equality compares the push key by its public key, never by its secret.
public struct RelayFixturePushMode: Sendable, Hashable {
  /// The push secret key: it replaces the `pubkey` of the descriptor's current key (id kept).
  public var pushKey: SecretKey
  /// The gateway base URL (`http://127.0.0.1:<port>`); nil runs no delivery worker, so wakes stay
  /// `pending` for a test or the demo to inspect.
  public var gatewayURL: String?
  /// The state file (leases and wakes); nil uses a temporary file that `stop()` removes.
  public var statePath: String?
  /// How long one gateway request may take (`GatewayClient.timeoutRange`).
  public var gatewayTimeout: Duration
  /// How long the idle delivery worker waits for an enqueue's signal before claiming anyway
  /// (1 s by default; a test sets it long to prove that the signal alone delivers).
  public var fallbackInterval: Duration
  /// Leases and wakes in a database shared with other relay processes (`relay --database`)
  /// instead of `statePath`'s SQLite file; nil: SQLite.
  package var sharedState: RelayFixtureSharedState?
  /// The tenant origin served as `push.origin` (`relay --origin`), so several processes on
  /// different ports serve one tenant; nil: the fixture's own `ws://<host>:<port>`. Such a relay
  /// also accepts NIP-42 `relay` tags and NIP-98 `u` values on the tenant origin.
  package var tenantOrigin: String?

  /// A push mode with `pushKey`; the other settings default to the spec's values.
  public init(
    pushKey: SecretKey, gatewayURL: String? = nil, statePath: String? = nil,
    gatewayTimeout: Duration = GatewayClient.defaultTimeout,
    fallbackInterval: Duration = .seconds(1)
  ) {
    self.pushKey = pushKey
    self.gatewayURL = gatewayURL
    self.statePath = statePath
    self.gatewayTimeout = gatewayTimeout
    self.fallbackInterval = fallbackInterval
  }

  /// Equal when every member is (the push key by its public key).
  public static func == (lhs: RelayFixturePushMode, rhs: RelayFixturePushMode) -> Bool {
    lhs.pushKey.publicKeyHex == rhs.pushKey.publicKeyHex && lhs.gatewayURL == rhs.gatewayURL
      && lhs.statePath == rhs.statePath && lhs.gatewayTimeout == rhs.gatewayTimeout
      && lhs.fallbackInterval == rhs.fallbackInterval && lhs.sharedState?.name == rhs.sharedState?.name
      && lhs.tenantOrigin == rhs.tenantOrigin
  }

  /// Hashes the key, the gateway and the state path (part of what `==` compares).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(pushKey.publicKeyHex)
    hasher.combine(gatewayURL)
    hasher.combine(statePath)
  }
}
