/// One complete HTTP/1.1 request as the server received it: the head parsed by libmicrohttpd,
/// the body whole and within its route's limit.
///
/// The request target is kept byte for byte as the client sent it (no percent-decoding), so a
/// NIP-98 `u` tag can be compared with it exactly.
public struct HTTPServerRequest: Sendable {
  /// The method, as sent (`GET`, `POST`, …).
  public let method: String
  /// The request target as sent: the path and any `?query`.
  public let target: String
  /// Header fields in arrival order, names lower-cased.
  public let headers: [(name: String, value: String)]
  /// The body (empty when there was none).
  public let body: [UInt8]
  /// The client's address (IPv4 dotted quad, or IPv6 text).
  public let remoteAddress: String

  /// Creates a request (the server makes them; tests and adapters may too).
  public init(
    method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
    remoteAddress: String = "127.0.0.1"
  ) {
    self.method = method
    self.target = target
    self.headers = headers.map { ($0.name.lowercased(), $0.value) }
    self.body = body
    self.remoteAddress = remoteAddress
  }

  /// The path: the target up to any `?`.
  public var path: Substring {
    target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
  }

  /// The query after `?`, nil when there is none.
  public var query: Substring? {
    target.firstIndex(of: "?").map { target[target.index(after: $0)...] }
  }

  /// The first value of the header `name` (any case), nil when absent.
  public func header(_ name: String) -> String? {
    let lowered = name.lowercased()
    return headers.first { $0.name == lowered }?.value
  }

  /// The bytes of the request head as counted against ``HTTPServerConfiguration/maxHeaderBytes``:
  /// the request line and each `name: value` line with their line ends.
  static func headBytes(method: String, target: String, headers: [(name: String, value: String)]) -> Int {
    headers.reduce(method.utf8.count + target.utf8.count + 12) {
      $0 + $1.name.utf8.count + $1.value.utf8.count + 4
    }
  }
}
