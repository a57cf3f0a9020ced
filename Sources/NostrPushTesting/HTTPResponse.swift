import NostrJSON

/// One response the fixture sends: status, header fields and a body held in memory.
///
/// Fault injection may replace how it is written (see `RelayFault`); the value itself always
/// describes the honest answer.
struct HTTPResponse: Sendable {
  /// The status code.
  var status: Int
  /// Header fields other than `Content-Length` and `Connection`, which the writer adds.
  var headers: [(name: String, value: String)]
  /// The body.
  var body: [UInt8]

  /// A JSON response.
  static func json(_ status: Int, _ body: [UInt8], extraHeaders: [(name: String, value: String)] = []) -> Self
  {
    HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + extraHeaders, body: body)
  }

  /// A `{"error":"…"}` response, the way a relay reports a refused request.
  static func error(_ status: Int, _ message: String, extraHeaders: [(name: String, value: String)] = [])
    -> Self
  {
    json(
      status, JSONWriter.bytes(.object(JSONObject(["error": .string(message)]))), extraHeaders: extraHeaders)
  }

  /// The status line and header fields, ending with the blank line, declaring `contentLength`.
  func head(contentLength: Int?, keepAlive: Bool) -> [UInt8] {
    var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    if let contentLength { text += "Content-Length: \(contentLength)\r\n" }
    text += keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n"
    text += "\r\n"
    return Array(text.utf8)
  }

  /// The standard reason phrase of `status`.
  static func reason(_ status: Int) -> String {
    switch status {
    case 100: "Continue"
    case 200: "OK"
    case 204: "No Content"
    case 304: "Not Modified"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 406: "Not Acceptable"
    case 408: "Request Timeout"
    case 411: "Length Required"
    case 413: "Content Too Large"
    case 429: "Too Many Requests"
    case 431: "Request Header Fields Too Large"
    case 500: "Internal Server Error"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    default: "Status \(status)"
    }
  }
}
