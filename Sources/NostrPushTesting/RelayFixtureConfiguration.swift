/// How a fixture relay binds, what it tolerates from clients and which clock it checks NIP-98 with.
///
/// The HTTP limits are those of `Docs/TestingWithRelayFixture.md` (bodies up to 1 MiB, heads up to 16 KiB, 256
/// connections, a request whole within 10 s of its first byte); they are package settings that
/// the package's own tests shorten to exercise them, so a client's test meets the spec's relay.
public struct RelayFixtureConfiguration: Sendable, Hashable {
  /// The largest request body accepted (1 MiB); a larger `Content-Length` is answered with 413.
  package static let defaultMaxBodyBytes = 1024 * 1024
  /// The largest request head (request line and headers) accepted (16 KiB); more is answered with 431.
  package static let defaultMaxHeaderBytes = 16 * 1024
  /// The most connections served at once (256); further ones wait in the listen backlog.
  package static let defaultMaxConnections = 256
  /// The time a request has to arrive whole, counted from its first byte (10 s).
  package static let defaultRequestTimeout: Duration = .seconds(10)
  /// How long a kept-alive connection may sit idle between requests (30 s).
  package static let defaultIdleTimeout: Duration = .seconds(30)
  /// How long one response may take to be written to a client that does not read (10 s).
  package static let defaultWriteTimeout: Duration = .seconds(10)
  /// How many requests the request log keeps (10 000).
  public static let defaultRequestLogCapacity = 10_000

  /// The address to bind: an IP literal in 127.0.0.0/8, `::1` (brackets allowed) or `localhost`.
  public var host: String
  /// The port to bind; 0 picks a free one.
  public var port: Int
  /// The loopback host name the relay's own URLs use (its origin and the NIP-98 `u` it expects),
  /// such as `relay_1.localhost`, for a relay reached by name; nil uses the bound address.
  package var publicHost: String?
  /// A fixed clock (UNIX seconds) for NIP-98 `created_at` checks; nil uses the system clock.
  public var now: Int64?
  /// Whether `GET /media/<name>` requires NIP-98 auth (a relay's own media does; a stand-in
  /// for a foreign avatar host does not).
  public var mediaRequiresAuthorization: Bool
  /// The largest request body accepted.
  package var maxBodyBytes: Int
  /// The largest request head accepted.
  package var maxHeaderBytes: Int
  /// The most connections served at once.
  package var maxConnections: Int
  /// The time a request has to arrive whole, from its first byte.
  package var requestTimeout: Duration
  /// How long a kept-alive connection may wait for its next request.
  package var idleTimeout: Duration
  /// How long writing one response may take.
  package var writeTimeout: Duration
  /// How many requests the request log keeps; when it is full the oldest tenth is dropped, so
  /// counts cover the latest requests only. 0 keeps no log (a relay nobody inspects).
  package var requestLogCapacity: Int
  /// Push mode (lease ingest, matching, the wake outbox and delivery); nil serves no push, so a
  /// kind 30350 event is answered `invalid: push not supported`.
  public var push: RelayFixturePushMode?

  /// Creates a configuration: port 0 picks a free port, `now` fixes the clock, `push` turns on
  /// push mode; the HTTP limits are the spec's.
  public init(
    host: String = "127.0.0.1", port: Int = 0, publicHost: String? = nil, now: Int64? = nil,
    mediaRequiresAuthorization: Bool = true,
    requestLogCapacity: Int = RelayFixtureConfiguration.defaultRequestLogCapacity,
    push: RelayFixturePushMode? = nil
  ) {
    self.host = host
    self.port = port
    self.publicHost = publicHost
    self.now = now
    self.mediaRequiresAuthorization = mediaRequiresAuthorization
    self.maxBodyBytes = Self.defaultMaxBodyBytes
    self.maxHeaderBytes = Self.defaultMaxHeaderBytes
    self.maxConnections = Self.defaultMaxConnections
    self.requestTimeout = Self.defaultRequestTimeout
    self.idleTimeout = Self.defaultIdleTimeout
    self.writeTimeout = Self.defaultWriteTimeout
    self.requestLogCapacity = requestLogCapacity
    self.push = push
  }
}
