import Foundation

/// One HTTP/1.x request as the fixture received it, body included.
struct HTTPRequest: Sendable {
  /// The method, as sent (methods are case-sensitive).
  var method: String
  /// The request target exactly as sent (`/query?x=1`).
  var target: String
  /// The minor version: 0 for HTTP/1.0, 1 for HTTP/1.1.
  var minorVersion: Int
  /// Header fields in order, names lower-cased, values with surrounding whitespace removed.
  var headers: [(name: String, value: String)]
  /// The body (empty without `Content-Length`).
  var body: [UInt8]

  /// The target's path: everything before the first `?`.
  var path: String {
    guard let question = target.firstIndex(of: "?") else { return target }
    return String(target[..<question])
  }

  /// The value of the first header named `name` (lower case).
  func header(_ name: String) -> String? {
    headers.first { $0.name == name }?.value
  }

  /// Whether the client wants the connection kept open after the response.
  var keepAlive: Bool {
    let tokens = (header("connection") ?? "").lowercased().split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    if tokens.contains("close") { return false }
    return minorVersion >= 1 || tokens.contains("keep-alive")
  }
}
