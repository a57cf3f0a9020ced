import NostrHTTPServer

/// The bounds the service's client listener puts on each message, connection and client address
/// (the spec's "bound the work per message and per peer"). The defaults are the decision; the
/// configuration file's optional `limits` sets the connection and per-address bounds (see
/// ``PushServiceConfiguration``), and a test shortens any of them through
/// ``PushServiceConfiguration/limits``.
///
/// Per address, not only in all: ``maxConnectionsPerIP`` is libmicrohttpd's per-IP limit, and an
/// upgraded WebSocket keeps counting against it (and against ``maxConnections``) until it ends,
/// so one address holds at most that share of the WebSocket slots and the rest stay free for
/// others. Behind a reverse proxy every client has the proxy's address: raise the per-address
/// bounds there and limit per client in the proxy (`Docs/DeployingThePushRelay.md`).
public struct PushServiceLimits: Sendable, Hashable {
  /// How long a client WebSocket may send no message before it is closed (1000, reason
  /// `idle`): 300 s. WebSocket pings never reach the session, so they do not extend it.
  public static let defaultIdleTimeout: Duration = .seconds(300)
  /// The most messages one connection may send per minute (then a `NOTICE` and close 1008): 120,
  /// two a second on average, far above what a lease client needs.
  public static let defaultMaxMessagesPerMinute = 120
  /// The most queries (WebSocket `REQ`s and `POST /query` requests together) one client address
  /// may make per minute, over all its connections: 600 (past it `CLOSED` / 429
  /// `rate-limited:`). Five connections at the per-connection message rate.
  public static let defaultMaxQueriesPerMinutePerIP = 600
  /// The most filters in one `REQ`: 10; more are refused whole with `CLOSED`, before any read.
  public static let defaultMaxFilters = 10
  /// The most events one `REQ` is answered with: 500.
  public static let defaultMaxAnswerEvents = 500
  /// The most bytes of `EVENT` messages one `REQ` is answered with (its queue bound): 1 MiB, as
  /// `POST /query`'s answer cap. Events are sent as they are read; the first that would pass the
  /// bound is not sent and the answer ends with `CLOSED` `error: answer truncated …`.
  public static let defaultMaxAnswerBytes = 1024 * 1024
  /// The most connections the client listener holds: 1024 (libmicrohttpd's limit; WebSockets
  /// included).
  public static let defaultMaxConnections = HTTPServerConfiguration.defaultMaxConnections
  /// The most connections (WebSockets included) one client address may hold: 32, a thirty-second
  /// of ``defaultMaxConnections``.
  public static let defaultMaxConnectionsPerIP = HTTPServerConfiguration.defaultMaxConnectionsPerIP

  /// See ``defaultIdleTimeout``.
  public var idleTimeout: Duration = defaultIdleTimeout
  /// See ``defaultMaxMessagesPerMinute``.
  public var maxMessagesPerMinute = defaultMaxMessagesPerMinute
  /// See ``defaultMaxQueriesPerMinutePerIP``.
  public var maxQueriesPerMinutePerIP = defaultMaxQueriesPerMinutePerIP
  /// See ``defaultMaxFilters``.
  public var maxFilters = defaultMaxFilters
  /// See ``defaultMaxAnswerEvents``.
  public var maxAnswerEvents = defaultMaxAnswerEvents
  /// See ``defaultMaxAnswerBytes``.
  public var maxAnswerBytes = defaultMaxAnswerBytes
  /// See ``defaultMaxConnections``.
  public var maxConnections = defaultMaxConnections
  /// See ``defaultMaxConnectionsPerIP``.
  public var maxConnectionsPerIP = defaultMaxConnectionsPerIP

  /// The defaults.
  public init() {}
}
