import NostrJSON
import NostrPushCore

/// One app the gateway sends for: its topic (bundle id), APNs environment, credential and the
/// constant wake body (`{"aps":{"alert":{"title":…,"body":…},"mutable-content":1}}`), built and
/// checked once, at start.
///
/// The alert text is what the device shows when the Notification Service Extension cannot
/// resolve the wake in time (it dies or runs out of time): the app's fallback, never content.
public struct APNsApp: Sendable {
  /// The largest wake body APNs takes for an alert: 4096 bytes.
  public static let maxBodyBytes = 4096
  /// The largest topic accepted.
  public static let maxTopicBytes = 255

  /// How the gateway authenticates to APNs for this app.
  public enum Credential: Sendable {
    /// Token auth: a bearer JWT from these tokens on every request.
    case token(APNsProviderTokens)
    /// Certificate auth: the client certificate is the transport's (``CurlClientCertificate``);
    /// no `authorization` field is sent.
    case certificate
  }

  /// The `apns-topic`: the app's bundle id.
  public let topic: String
  /// Production or sandbox.
  public let environment: APNsEnvironment
  /// The credential.
  public let credential: Credential
  /// The constant wake body.
  public let body: [UInt8]

  /// An app; `invalid_app` (the field named) for an empty or oversized topic, a topic with
  /// characters outside `A–Z a–z 0–9 . - _`, or a wake body over 4096 bytes.
  public init(
    topic: String, environment: APNsEnvironment, credential: Credential, alertTitle: String, alertBody: String
  ) throws(PushGatewayError) {
    guard (1...Self.maxTopicBytes).contains(topic.utf8.count),
      topic.utf8.allSatisfy({
        (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2E
          || $0 == 0x2D || $0 == 0x5F
      })
    else {
      throw PushGatewayError(code: .invalidApp, field: "topic", message: "not a bundle id")
    }
    let alert = JSONObject(["title": .string(alertTitle), "body": .string(alertBody)])
    let aps = JSONObject(["alert": .object(alert), "mutable-content": .integer(1)])
    let body = JSONWriter.bytes(.object(JSONObject(["aps": .object(aps)])))
    guard body.count <= Self.maxBodyBytes else {
      throw PushGatewayError(
        code: .invalidApp, field: "alert",
        message: "wake body of \(body.count) bytes over \(Self.maxBodyBytes)")
    }
    self.topic = topic
    self.environment = environment
    self.credential = credential
    self.body = body
  }
}
