import NostrJSON
import NostrPushCore

/// What became of one wake at APNs, in the terms of the gateway's answer table
/// (each case says the APNs answer it stands for).
public enum APNsOutcome: Sendable, Hashable {
  /// 200: APNs took it (the relay's `request_id` is kept).
  case accepted
  /// 410 `Unregistered` / `ExpiredToken`: the device token is dead; `invalidAt` is APNs's
  /// `timestamp` in Unix seconds, when it gave one.
  case invalidEndpoint(invalidAt: Int64?)
  /// A fault of the gateway's configuration for this app (wrong topic, bad credential, a token
  /// APNs will not take, too many token updates): never the device's fault, so nothing is
  /// invalidated. `reason` is APNs's.
  case configurationFault(reason: String)
  /// A passing failure (429 `TooManyRequests`, 5xx, a timeout, a reset): try again, after
  /// `retryAfterSeconds` when APNs said (1…3600).
  case retry(retryAfterSeconds: Int?)
  /// Another 4xx: this request was wrong (`reason` is APNs's).
  case invalidRequest(reason: String)

  /// APNs reasons of a 400 that mean the app's topic or the device token do not fit the
  /// credential: configuration faults, not dead endpoints.
  static let configurationReasons400: Set<String> = [
    "BadDeviceToken", "DeviceTokenNotForTopic", "BadTopic", "TopicDisallowed", "MissingTopic",
  ]
  /// 410 reasons that mean the device token is dead.
  static let deadEndpointReasons: Set<String> = ["Unregistered", "ExpiredToken"]

  /// The longest `retry-after` honoured, in seconds.
  static let maxRetryAfterSeconds = 3600

  /// The outcome of APNs's `response` (after any token retry was made).
  static func classify(_ response: APNsResponse) -> APNsOutcome {
    let reason = Self.reason(in: response.body)
    switch response.status {
    case 200:
      return .accepted
    case 410 where deadEndpointReasons.contains(reason):
      return .invalidEndpoint(invalidAt: timestampSeconds(in: response.body))
    case 400 where configurationReasons400.contains(reason), 403:
      return .configurationFault(reason: reason)
    case 429 where reason == "TooManyProviderTokenUpdates":
      return .configurationFault(reason: reason)
    case 429, 500...599:
      return .retry(retryAfterSeconds: retryAfter(response.headers["retry-after"]))
    default:
      return .invalidRequest(reason: reason)
    }
  }

  /// APNs's `reason` member, or "" when the body has none.
  static func reason(in body: [UInt8]) -> String {
    guard !body.isEmpty, let object = try? JSONReader(maxDepth: 4, maxBytes: 8192).read(body).objectValue,
      let reason = object["reason"]?.stringValue
    else { return "" }
    return String(reason.prefix(64))
  }

  /// APNs's `timestamp` (Unix milliseconds) in seconds, nil when absent.
  static func timestampSeconds(in body: [UInt8]) -> Int64? {
    guard let object = try? JSONReader(maxDepth: 4, maxBytes: 8192).read(body).objectValue,
      let milliseconds = object["timestamp"]?.integerValue, milliseconds >= 0
    else { return nil }
    return milliseconds / 1000
  }

  /// A `retry-after` of delta-seconds within 1…3600, else nil.
  static func retryAfter(_ value: String?) -> Int? {
    guard let value, let seconds = Int(value), seconds >= 1 else { return nil }
    return min(seconds, maxRetryAfterSeconds)
  }
}
