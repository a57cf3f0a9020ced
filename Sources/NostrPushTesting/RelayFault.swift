import NostrJSON

/// A misbehaviour the fixture relay shows on demand, for one path and optionally one queried kind.
///
/// Faults come from the data folder's `faults.json` or from `RelayFixtureServer.setFaults(_:)`.
/// Every matching `delay` is applied; then the first matching fault of any other action decides
/// how the answer is written. For `POST /query`, a fault with a `kind` applies when any filter of
/// the request lists that kind in `kinds` (a profile fault: kind 0). A fault with `times` applies
/// to that many matching requests only.
///
/// `faults.json` is a JSON array of objects:
/// ```json
/// [
///   {"path": "/query", "kind": 0, "action": "delay", "ms": 2500},
///   {"path": "/query", "kind": 39002, "action": "oversized_body", "bytes": 4194304},
///   {"path": "/media/*", "action": "status", "status": 503, "times": 1},
///   {"path": "/query", "kind": 39000, "action": "truncated_body"},
///   {"path": "/query", "action": "not_json"},
///   {"path": "/", "action": "close"},
///   {"path": "/query", "action": "body", "status": 200, "body": "[]", "content_type": "application/json"}
/// ]
/// ```
/// `path` is an exact path or a prefix ending in `*` (`*` alone matches every path). `kind`,
/// `times` and each action's own members are optional unless stated: `ms` (delay, required),
/// `status` (status, required; body, default 200), `bytes` (oversized_body, default 4 MiB),
/// `declares_length` (oversized_body, default true), `body` (required) and `content_type`
/// (default `application/json`) for `body`. Any other member is an error.
public struct RelayFault: Sendable, Hashable {
  /// The largest padding body `oversizedBody` may stream (1 GiB), so a typo cannot run forever.
  package static let maxOversizedBytes = 1 << 30
  /// The padding size used when `bytes` is not given (4 MiB, over every response cap of the suite).
  package static let defaultOversizedBytes = 4 * 1024 * 1024
  /// The longest delay a fault may ask for (10 minutes).
  package static let maxDelayMilliseconds = 600_000

  /// What the fault does to the answer: the relay or network misbehaviour a client's test wants
  /// to meet (a status, a delay, a cut connection, a body of its choosing).
  public enum Action: Sendable, Hashable {
    /// Waits this long before answering (the answer is otherwise unchanged).
    case delay(milliseconds: Int)
    /// Answers with this status and a `{"error":"fault injected"}` body instead.
    case status(Int)
    /// Answers 200 with this many bytes of `[` padding, streamed; with `declaresLength` false the
    /// response has no `Content-Length` and ends when the connection closes.
    case oversizedBody(bytes: Int, declaresLength: Bool)
    /// Declares the honest answer's `Content-Length`, sends half of the body, then closes.
    case truncatedBody
    /// Answers 200, `Content-Type: application/json`, with bytes that are not JSON.
    case notJSON
    /// Closes the connection without answering.
    case closeConnection
    /// Answers with exactly this status, content type and body (for example an array holding
    /// one tampered event).
    case body(status: Int, contentType: String, bytes: [UInt8])
  }

  /// An exact path (`/query`, `/media/avatar.png`, `/`) or a prefix ending in `*`.
  public var path: String
  /// For `/query`: the fault applies only when a filter asks for this kind; nil applies always.
  public var kind: Int?
  /// What happens to a matching request's answer.
  public var action: Action
  /// How many matching requests the fault applies to; nil for every one.
  public var times: Int?

  /// Creates a fault for requests to `path` (optionally only those asking for `kind`, and only
  /// the first `times`); install it with `RelayFixtureServer.setFaults(_:)` or in
  /// `RelayFixtureData.faults`.
  public init(path: String, kind: Int? = nil, action: Action, times: Int? = nil) {
    self.path = path
    self.kind = kind
    self.action = action
    self.times = times
  }

  /// Whether the fault applies to a request for `requestPath` asking for `kinds`.
  func matches(path requestPath: String, kinds: Set<Int>) -> Bool {
    let pathMatches =
      path.hasSuffix("*") ? requestPath.hasPrefix(String(path.dropLast())) : requestPath == path
    guard pathMatches else { return false }
    guard let kind else { return true }
    return kinds.contains(kind)
  }

  /// Parses the `faults.json` format documented on the type.
  package static func parseList(_ bytes: [UInt8]) throws(RelayFixtureError) -> [RelayFault] {
    try FixtureJSONArray.parse(bytes, field: "faults.json", entry: parse)
  }

  private static func parse(_ value: JSONValue, field: String) throws(RelayFixtureError) -> RelayFault {
    guard let object = value.objectValue else {
      throw RelayFixtureError(code: .invalidData, field: field, message: "must be an object")
    }
    func invalid(_ member: String, _ message: String) -> RelayFixtureError {
      RelayFixtureError(code: .invalidData, field: "\(field).\(member)", message: message)
    }
    func integer(_ member: String, in range: ClosedRange<Int>) throws(RelayFixtureError) -> Int? {
      guard let raw = object[member] else { return nil }
      guard let number = raw.integerValue, let int = Int(exactly: number), range.contains(int) else {
        throw invalid(member, "must be an integer in \(range.lowerBound)...\(range.upperBound)")
      }
      return int
    }
    guard let path = object["path"]?.stringValue, path.hasPrefix("/") || path == "*" else {
      throw invalid("path", "must be a string starting with / (or *)")
    }
    let kind = try integer("kind", in: 0...65535)
    let times = try integer("times", in: 1...Int(Int32.max))
    guard let name = object["action"]?.stringValue else { throw invalid("action", "must be a string") }
    var allowed: Set<String> = ["path", "kind", "times", "action"]
    let action: Action
    switch name {
    case "delay":
      allowed.insert("ms")
      guard let ms = try integer("ms", in: 0...maxDelayMilliseconds) else {
        throw invalid("ms", "is required")
      }
      action = .delay(milliseconds: ms)
    case "status":
      allowed.insert("status")
      guard let status = try integer("status", in: 100...599) else { throw invalid("status", "is required") }
      action = .status(status)
    case "oversized_body":
      allowed.formUnion(["bytes", "declares_length"])
      let bytes = try integer("bytes", in: 1...maxOversizedBytes) ?? defaultOversizedBytes
      var declares = true
      if let raw = object["declares_length"] {
        guard let flag = raw.boolValue else { throw invalid("declares_length", "must be a boolean") }
        declares = flag
      }
      action = .oversizedBody(bytes: bytes, declaresLength: declares)
    case "truncated_body": action = .truncatedBody
    case "not_json": action = .notJSON
    case "close": action = .closeConnection
    case "body":
      allowed.formUnion(["status", "body", "content_type"])
      let status = try integer("status", in: 100...599) ?? 200
      guard let body = object["body"]?.stringValue else { throw invalid("body", "must be a string") }
      var contentType = "application/json"
      if let raw = object["content_type"] {
        guard let text = raw.stringValue else { throw invalid("content_type", "must be a string") }
        contentType = text
      }
      action = .body(status: status, contentType: contentType, bytes: Array(body.utf8))
    default:
      throw invalid(
        "action",
        "unknown action \(name) (delay, status, oversized_body, truncated_body, not_json, close, body)")
    }
    if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
      throw invalid(unknown, "unknown member for action \(name)")
    }
    return RelayFault(path: path, kind: kind, action: action, times: times)
  }
}
