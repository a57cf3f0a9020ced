/// How a gateway fixture binds, what it records in the APNs request and how strict its quota is.
///
/// The defaults are `Docs/VendoringPushRelay.md`'s: IPv4 loopback, a free port, topic `org.nostrpushkit.demo`,
/// a quota of 10 answered attempts per device token per 10 s, the system clock.
public struct GatewayFixtureConfiguration: Sendable, Hashable {
  /// The APNs topic recorded when none is given.
  public static let defaultTopic = "org.nostrpushkit.demo"
  /// The default per-device quota: answered attempts per `quotaWindowSeconds`.
  public static let defaultQuota = 10
  /// The span of the per-device quota, in seconds.
  package static let quotaWindowSeconds: Int64 = 10

  /// The address to bind: an IPv4 literal in 127.0.0.0/8 or `localhost`; `::1` is refused because
  /// FoundationNetworking on Linux cannot fetch a URL with an IPv6 literal.
  public var host: String
  /// The port to bind; 0 picks a free one.
  public var port: Int
  /// The `apns-topic` header of every recorded APNs request.
  public var topic: String
  /// Answered attempts allowed per device token in the last `quotaWindowSeconds`; 0 turns the
  /// quota off.
  public var quota: Int
  /// A fixed clock (Unix seconds) for NIP-98, grant and quota checks; nil uses the system clock.
  /// `GatewayFixture.advanceClock(by:)` moves it.
  public var now: Int64?

  /// Creates a configuration; every value defaults to the documented one.
  public init(
    host: String = "127.0.0.1", port: Int = 0, topic: String = GatewayFixtureConfiguration.defaultTopic,
    quota: Int = GatewayFixtureConfiguration.defaultQuota, now: Int64? = nil
  ) {
    self.host = host
    self.port = port
    self.topic = topic
    self.quota = quota
    self.now = now
  }
}
