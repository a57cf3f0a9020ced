import NostrHTTP
import NostrPushCore

/// One request to APNs: the device token (the path `/3/device/<token>`), the header fields and
/// the body.
public struct APNsRequest: Sendable, Hashable {
  /// The device token, lower-case hex.
  public var deviceToken: String
  /// Header fields in order (`authorization`, `apns-topic`, `apns-push-type`, …).
  public var headers: [APNsHeaderField]
  /// The JSON body.
  public var body: [UInt8]

  /// A request to `deviceToken`.
  public init(deviceToken: String, headers: [APNsHeaderField], body: [UInt8]) {
    self.deviceToken = deviceToken
    self.headers = headers
    self.body = body
  }

  /// The request path: `/3/device/<token>`.
  public var path: String { "/3/device/" + deviceToken }
}

/// One header field of an APNs request.
public struct APNsHeaderField: Sendable, Hashable {
  /// The field name, lower-case.
  public var name: String
  /// The value.
  public var value: String

  /// A field.
  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}

/// What APNs answered: the status, the header fields (names lower-cased) and the body.
public struct APNsResponse: Sendable, Hashable {
  /// The HTTP status.
  public var status: Int
  /// The header fields (`apns-id`, `apns-unique-id`, …).
  public var headers: [String: String]
  /// The body: empty on 200, `{"reason":…}` otherwise.
  public var body: [UInt8]

  /// A response.
  public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }
}

/// The seam between the gateway and Apple: send one request, get its answer by a deadline.
///
/// ``CurlAPNsTransport`` is the network one (HTTP/2 over libcurl); tests and the demo can record
/// the requests instead.
public protocol APNsTransport: Sendable {
  /// Sends `request` and returns APNs's answer, or throws by `deadline` (`timeout`), on a
  /// connection failure (`unreachable`, `truncated`) or cancellation (`cancelled`).
  func send(_ request: APNsRequest, deadline: ContinuousClock.Instant) async throws(HTTPTransportError)
    -> APNsResponse
}

/// The APNs environments and their hosts.
public enum APNsEnvironment: String, Sendable, Hashable {
  /// `api.push.apple.com`.
  case production
  /// `api.sandbox.push.apple.com`.
  case sandbox

  /// The origin requests go to.
  public var origin: String {
    switch self {
    case .production: "https://api.push.apple.com"
    case .sandbox: "https://api.sandbox.push.apple.com"
    }
  }
}
