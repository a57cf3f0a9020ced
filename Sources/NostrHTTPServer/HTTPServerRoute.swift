/// What answers one request: the shape a Vapor or Hummingbird route can wrap as well.
public typealias HTTPServerHandler = @Sendable (HTTPServerRequest) async -> HTTPServerResponse

/// What serves one upgraded WebSocket connection; the connection is closed when it returns.
public typealias HTTPServerWebSocketHandler = @Sendable (HTTPServerRequest, HTTPServerWebSocket) async -> Void

/// One route: a method and an exact path, the largest body it accepts, and its handler.
///
/// A route may also take WebSocket upgrades (a `GET` with `Upgrade: websocket`): those go to its
/// WebSocket handler, other requests to its HTTP handler (a relay serves NIP-11 and NIP-01 on `/`).
public struct HTTPServerRoute: Sendable {
  /// The method, upper-case.
  public let method: String
  /// The exact path (no query), starting with `/`.
  public let path: String
  /// The largest body accepted; a longer one (announced or sent) is answered 413.
  public let maxBodyBytes: Int
  /// The HTTP handler.
  public let handler: HTTPServerHandler
  /// The WebSocket handler, nil when the route takes no upgrades.
  public let webSocket: HTTPServerWebSocketHandler?

  /// A route for `method path` whose bodies may be up to `maxBodyBytes`.
  public init(
    _ method: String, _ path: String, maxBodyBytes: Int = 0, webSocket: HTTPServerWebSocketHandler? = nil,
    handler: @escaping HTTPServerHandler
  ) {
    self.method = method.uppercased()
    self.path = path
    self.maxBodyBytes = max(0, maxBodyBytes)
    self.handler = handler
    self.webSocket = webSocket
  }
}

/// The server's route table: exact method and path, 404 for an unknown path and 405 for a known
/// path with another method, both before any body is read.
public struct HTTPServerRouter: Sendable {
  /// What a request head matched.
  enum Match {
    case route(HTTPServerRoute)
    case methodNotAllowed
    case notFound
  }

  private let routes: [String: [String: HTTPServerRoute]]

  /// A table of `routes`; `invalid_route` when a path is not absolute or a method and path
  /// appear twice.
  public init(_ routes: [HTTPServerRoute]) throws(HTTPServerError) {
    var table: [String: [String: HTTPServerRoute]] = [:]
    for route in routes {
      guard route.path.hasPrefix("/"), !route.path.contains("?") else {
        throw HTTPServerError(
          code: .invalidRoute, field: route.path, message: "path must start with / and hold no query")
      }
      guard table[route.path]?[route.method] == nil else {
        throw HTTPServerError(
          code: .invalidRoute, field: route.path, message: "\(route.method) declared twice")
      }
      table[route.path, default: [:]][route.method] = route
    }
    self.routes = table
  }

  /// The route for `method` on `path`.
  func match(method: String, path: Substring) -> Match {
    guard let methods = routes[String(path)] else { return .notFound }
    guard let route = methods[method] else { return .methodNotAllowed }
    return .route(route)
  }
}
