/// An HTTP response a handler returns: status, header fields and the whole body.
///
/// The server adds `Content-Length` (and `Date`, `Connection` as HTTP/1.1 needs); a handler never
/// sets those.
public struct HTTPServerResponse: Sendable, Hashable {
  /// The status code (100–599; 101 is the server's own, for WebSocket upgrades).
  public var status: Int
  /// Header fields in order, names as written.
  public var headers: [HTTPServerHeader]
  /// The body bytes.
  public var body: [UInt8]

  /// A response with `status`, `headers` and `body`.
  public init(status: Int, headers: [HTTPServerHeader] = [], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A JSON response: `body` with `Content-Type: application/json`.
  public static func json(status: Int, _ body: [UInt8]) -> HTTPServerResponse {
    HTTPServerResponse(
      status: status, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json")], body: body
    )
  }

  /// A plain-text response.
  public static func text(status: Int, _ text: String) -> HTTPServerResponse {
    HTTPServerResponse(
      status: status, headers: [HTTPServerHeader(name: "Content-Type", value: "text/plain; charset=utf-8")],
      body: Array(text.utf8))
  }

  /// The server's own error answer: `{"error":"<code>"}` with `status`.
  static func error(_ status: Int, _ code: String) -> HTTPServerResponse {
    json(status: status, Array("{\"error\":\"\(code)\"}".utf8))
  }
}

/// One response header field.
public struct HTTPServerHeader: Sendable, Hashable {
  /// The field name.
  public var name: String
  /// The field value.
  public var value: String

  /// A header field.
  public init(name: String, value: String) {
    self.name = name
    self.value = value
  }
}
