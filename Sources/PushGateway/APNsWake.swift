import NostrEvent
import NostrPushCore

/// One wake to send to APNs, validated: the device token, the relay's `request_id` (sent as
/// `apns-id`) and the wake's expiry.
public struct APNsWake: Sendable, Hashable {
  /// The shortest device token accepted, in hex digits (APNs tokens are 32 bytes today).
  public static let minDeviceTokenDigits = 64
  /// The longest device token accepted, in hex digits (room for Apple to grow them).
  public static let maxDeviceTokenDigits = 200

  /// The device token, lower-case hex.
  public let deviceToken: String
  /// The relay's `request_id`: a lower-case UUID v4, APNs's `apns-id`.
  public let requestID: String
  /// The wake's expiry, Unix seconds.
  public let expiresAt: Int64

  /// A wake; `invalid_device_token` unless `deviceToken` is 64 to 200 lower-case hex digits of
  /// even count, `invalid_request_id` unless `requestID` is a lower-case UUID v4.
  public init(deviceToken: String, requestID: String, expiresAt: Int64) throws(PushGatewayError) {
    guard Self.isDeviceToken(deviceToken) else {
      throw PushGatewayError(
        code: .invalidDeviceToken, field: "endpoint",
        message: "not \(Self.minDeviceTokenDigits)–\(Self.maxDeviceTokenDigits) lower-case hex digits")
    }
    guard LowercaseUUID.isValidV4(requestID) else {
      throw PushGatewayError(
        code: .invalidRequestID, field: "request_id", message: "not a lower-case UUID v4")
    }
    self.deviceToken = deviceToken
    self.requestID = requestID
    self.expiresAt = expiresAt
  }

  /// Whether `text` is a device token: 64 to 200 lower-case hex digits of even count.
  public static func isDeviceToken(_ text: String) -> Bool {
    let digits = text.utf8
    return (minDeviceTokenDigits...maxDeviceTokenDigits).contains(digits.count) && digits.count % 2 == 0
      && digits.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
  }
}
