import NostrEvent
import NostrJSON

/// One scripted gateway answer: for one device token (or any), a status, the exact body bytes,
/// an optional delay and how many times it answers.
///
/// A delivery attempt that passes every check takes the next entry for its device token, else the
/// next unkeyed one, else the default 200 `{"status":"accepted"}`. Tests use scripts to drive every
/// row of the worker's reaction table.
public struct GatewayScriptEntry: Sendable, Hashable {
  /// The longest delay an entry may hold an answer (60 s), beyond any client timeout.
  package static let maxDelayMilliseconds = 60_000
  /// The most times one entry may answer.
  package static let maxTimes = 1_000_000
  /// The longest scripted body (64 KiB), so a script can exceed the relay's 16 KiB read cap.
  package static let maxBodyBytes = 64 * 1024

  /// The device token (lowercase hex) this entry answers for; nil answers any token.
  public var deviceToken: String?
  /// The HTTP status, 100…599.
  public var status: Int
  /// The exact body bytes; nil uses the default body of the status (see `GatewayFixture`).
  public var body: String?
  /// How long the answer is held before it is written, in milliseconds.
  public var delayMilliseconds: Int
  /// How many attempts this entry answers (at least 1).
  public var times: Int

  /// Creates an entry answering `status` (with `body`, after `delayMilliseconds`) to the next
  /// `times` attempts for `deviceToken` (nil: any token); `deviceToken` is lower-cased.
  public init(
    deviceToken: String? = nil, status: Int, body: String? = nil, delayMilliseconds: Int = 0, times: Int = 1
  ) {
    self.deviceToken = deviceToken?.lowercased()
    self.status = status
    self.body = body
    self.delayMilliseconds = delayMilliseconds
    self.times = times
  }

  /// Parses a script document: a JSON array of
  /// `{"device_token"?,"status","body"?,"delay_ms"?,"times"?}` (unknown members refused).
  ///
  /// Errors name the entry (`script[2].status`).
  package static func parse(json bytes: [UInt8]) throws(RelayFixtureError) -> [GatewayScriptEntry] {
    try FixtureJSONArray.parse(bytes, field: "script", maxDepth: 4, entry: entry)
  }

  private static func entry(_ value: JSONValue, field: String) throws(RelayFixtureError) -> GatewayScriptEntry
  {
    guard let object = value.objectValue else {
      throw RelayFixtureError(code: .invalidData, field: field, message: "must be an object")
    }
    for key in object.keys where !["device_token", "status", "body", "delay_ms", "times"].contains(key) {
      throw RelayFixtureError(code: .invalidData, field: "\(field).\(key)", message: "unknown member")
    }
    var token: String?
    if let raw = object["device_token"], !raw.isNull {
      guard let text = raw.stringValue, GatewayFixture.isDeviceToken(text) else {
        throw RelayFixtureError(
          code: .invalidData, field: "\(field).device_token", message: "must be a hex device token")
      }
      token = text
    }
    guard let status = object["status"]?.integerValue, (100...599).contains(status) else {
      throw RelayFixtureError(
        code: .invalidData, field: "\(field).status", message: "must be an integer in 100...599")
    }
    var body: String?
    if let raw = object["body"], !raw.isNull {
      guard let text = raw.stringValue, text.utf8.count <= maxBodyBytes else {
        throw RelayFixtureError(
          code: .invalidData, field: "\(field).body",
          message: "must be a string of at most \(maxBodyBytes) bytes")
      }
      body = text
    }
    let delay =
      try integer(object["delay_ms"], field: "\(field).delay_ms", range: 0...maxDelayMilliseconds) ?? 0
    let times = try integer(object["times"], field: "\(field).times", range: 1...maxTimes) ?? 1
    return GatewayScriptEntry(
      deviceToken: token, status: Int(status), body: body, delayMilliseconds: delay, times: times)
  }

  private static func integer(
    _ value: JSONValue?, field: String, range: ClosedRange<Int>
  ) throws(RelayFixtureError) -> Int? {
    guard let value, !value.isNull else { return nil }
    guard let number = value.integerValue, let int = Int(exactly: number), range.contains(int) else {
      throw RelayFixtureError(
        code: .invalidData, field: field,
        message: "must be an integer in \(range.lowerBound)...\(range.upperBound)")
    }
    return int
  }
}
