import NostrEvent
import PushRelay

/// The fixture relay's push mode (`push-relay.md`): the push key it opens leases with, and
/// optionally the gateway its in-process delivery worker sends wakes to.
///
/// A relay with a push mode ingests kind 30350 through `PushIngest`, matches every event newly
/// stored over a bridge into a SQLite wake outbox, and, with `gatewayURL`, delivers those wakes.
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
  /// The pause between delivery sweeps; at most `DeliveryWorker.maxFixtureSweepInterval`.
  public var sweepInterval: Duration

  /// A push mode with `pushKey`; the other settings default to the spec's values.
  public init(
    pushKey: SecretKey, gatewayURL: String? = nil, statePath: String? = nil,
    gatewayTimeout: Duration = GatewayClient.defaultTimeout,
    sweepInterval: Duration = DeliveryWorker.defaultSweepInterval
  ) {
    self.pushKey = pushKey
    self.gatewayURL = gatewayURL
    self.statePath = statePath
    self.gatewayTimeout = gatewayTimeout
    self.sweepInterval = sweepInterval
  }

  public static func == (lhs: RelayFixturePushMode, rhs: RelayFixturePushMode) -> Bool {
    lhs.pushKey.publicKeyHex == rhs.pushKey.publicKeyHex && lhs.gatewayURL == rhs.gatewayURL
      && lhs.statePath == rhs.statePath && lhs.gatewayTimeout == rhs.gatewayTimeout
      && lhs.sweepInterval == rhs.sweepInterval
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(pushKey.publicKeyHex)
    hasher.combine(gatewayURL)
    hasher.combine(statePath)
  }
}
