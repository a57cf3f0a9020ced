internal import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the server listens and the bounds it enforces on every client.
///
/// The defaults suit a service behind a reverse proxy on loopback. Every bound is enforced by
/// the server itself: libmicrohttpd closes a connection over the per-IP limit at once, leaves
/// one over the total limit in the listen backlog until another closes, and closes one idle
/// longer than ``idleTimeout``; the server answers 431 to a request head over
/// ``maxHeaderBytes``, 413 to a body over its route's limit, and shuts a connection whose request
/// head has not arrived whole within ``headerReadTimeout`` (a client that trickles bytes to stay
/// under the idle timeout).
public struct HTTPServerConfiguration: Sendable, Hashable {
  /// The default largest request head: the request line and every header line, 16 KiB.
  public static let defaultMaxHeaderBytes = 16 * 1024
  /// The most connections a server accepts in all, by default.
  public static let defaultMaxConnections = 1024
  /// The most connections one client address may hold, by default.
  public static let defaultMaxConnectionsPerIP = 32
  /// The default idle limit of a connection: 30 s.
  public static let defaultIdleTimeout: Duration = .seconds(30)
  /// The default time a connection has to deliver a whole request head: 10 s.
  public static let defaultHeaderReadTimeout: Duration = .seconds(10)
  /// The largest accepted ``maxHeaderBytes``: 1 MiB.
  public static let maxHeaderBytesCeiling = 1024 * 1024

  /// The IPv4 address to listen on (dotted quad), loopback by default.
  public var host: String
  /// The TCP port; 0 asks the system for a free one (read it from ``HTTPServer/port``).
  public var port: UInt16
  /// The largest request head in bytes: past it, 431.
  public var maxHeaderBytes: Int
  /// The most connections open at once; more wait in the listen backlog until one closes.
  public var maxConnections: Int
  /// The most connections one client address may hold; more are closed on accept.
  public var maxConnectionsPerIP: Int
  /// How long a connection may stay silent (whole seconds, at least 1): between requests on a
  /// kept-alive connection, and between any two reads or writes.
  public var idleTimeout: Duration
  /// How long a connection has to deliver a whole request head once it is accepted (or once
  /// the request line of a kept-alive connection's next request arrived).
  public var headerReadTimeout: Duration

  /// A configuration; `validated()` checks it and ``HTTPServer/start(_:router:)`` calls that.
  public init(
    host: String = "127.0.0.1", port: UInt16 = 0, maxHeaderBytes: Int = defaultMaxHeaderBytes,
    maxConnections: Int = defaultMaxConnections, maxConnectionsPerIP: Int = defaultMaxConnectionsPerIP,
    idleTimeout: Duration = defaultIdleTimeout, headerReadTimeout: Duration = defaultHeaderReadTimeout
  ) {
    self.host = host
    self.port = port
    self.maxHeaderBytes = maxHeaderBytes
    self.maxConnections = maxConnections
    self.maxConnectionsPerIP = maxConnectionsPerIP
    self.idleTimeout = idleTimeout
    self.headerReadTimeout = headerReadTimeout
  }

  /// The IPv4 address in network byte order; `invalid_configuration` (field `host`) when `host`
  /// is not a dotted-quad IPv4 address.
  func ipv4Address() throws(HTTPServerError) -> UInt32 {
    var address = in_addr()
    guard inet_pton(AF_INET, host, &address) == 1 else {
      throw HTTPServerError(
        code: .invalidConfiguration, field: "host", message: "not an IPv4 address (dotted quad)")
    }
    return address.s_addr
  }

  /// Checks every bound; the error names the field.
  func validate() throws(HTTPServerError) {
    _ = try ipv4Address()
    func require(_ ok: Bool, _ field: String, _ message: String) throws(HTTPServerError) {
      if !ok { throw HTTPServerError(code: .invalidConfiguration, field: field, message: message) }
    }
    try require(
      (1024...Self.maxHeaderBytesCeiling).contains(maxHeaderBytes), "maxHeaderBytes",
      "must be 1024 to \(Self.maxHeaderBytesCeiling)")
    try require((1...65_536).contains(maxConnections), "maxConnections", "must be 1 to 65536")
    try require(
      (1...maxConnections).contains(maxConnectionsPerIP), "maxConnectionsPerIP", "must be 1 to maxConnections"
    )
    try require(
      idleTimeout >= .seconds(1) && idleTimeout <= .seconds(86_400), "idleTimeout", "must be 1 s to 1 day")
    try require(
      headerReadTimeout >= .milliseconds(100) && headerReadTimeout <= .seconds(3600), "headerReadTimeout",
      "must be 100 ms to 1 hour")
  }

  /// The idle timeout in whole seconds, rounded up (libmicrohttpd counts seconds).
  var idleTimeoutSeconds: UInt32 {
    let milliseconds = idleTimeout.wholeMilliseconds
    return UInt32(clamping: (milliseconds + 999) / 1000)
  }

  /// The per-connection memory libmicrohttpd may use: room for a head of ``maxHeaderBytes``
  /// twice over (its read buffer and the parsed fields) plus a response head.
  var connectionMemoryLimit: Int { maxHeaderBytes * 2 + 16 * 1024 }
}
