import NostrJSON

/// The APNs request the gateway fixture would have sent for one accepted delivery.
///
/// Tests and the demo read it to check that a wake reached "APNs" with the right `apns-id` and a
/// body that says nothing about the message.
public struct GatewayDelivery: Sendable, Hashable {
  /// The names of `headers`, in the order the record lists them.
  package static let headerNames = [
    "apns-id", "apns-push-type", "apns-priority", "apns-expiration", "apns-topic",
  ]

  /// The delivery's `request_id` (a lowercase UUID), also the `apns-id`.
  public var requestID: String
  /// The device token the grant sealed.
  public var deviceToken: String
  /// The relay key the grant was issued to (the NIP-98 signer).
  package var relayPubkey: String
  /// When the gateway received the request (its clock, Unix seconds).
  package var receivedAt: Int64
  /// The APNs headers: `apns-id`, `apns-push-type` (`alert`), `apns-priority` (`10`),
  /// `apns-expiration` (the wake's `expires_at`), `apns-topic`.
  public var headers: [String: String]
  /// The exact APNs body, always `GatewayFixture.apnsBody`.
  public var body: String

  /// The record as `GET /v1/test/deliveries` lists it.
  package var jsonValue: JSONValue {
    var headerMembers: [JSONMember] = []
    for name in Self.headerNames {
      headerMembers.append(JSONMember(key: name, value: headers[name].map { .string($0) } ?? .null))
    }
    return .object(
      JSONObject([
        JSONMember(key: "request_id", value: .string(requestID)),
        JSONMember(key: "device_token", value: .string(deviceToken)),
        JSONMember(key: "relay_pubkey", value: .string(relayPubkey)),
        JSONMember(key: "received_at", value: .integer(receivedAt)),
        JSONMember(key: "headers", value: .object(JSONObject(headerMembers))),
        JSONMember(key: "body", value: .string(body)),
      ]))
  }
}

/// One delivery request the gateway fixture answered, whatever the answer.
///
/// `GET /v1/test/deliveries` lists them in arrival order as `requests`; a value the request did not
/// reveal (no parsable `request_id`, a grant that did not open) is nil.
public struct GatewayRequestRecord: Sendable, Hashable {
  /// The body's `request_id`, when the body had the strict form.
  public var requestID: String?
  /// The grant's device token, when the grant opened.
  public var deviceToken: String?
  /// The HTTP status answered.
  public var status: Int

  /// The record as `GET /v1/test/deliveries` lists it.
  package var jsonValue: JSONValue {
    .object(
      JSONObject([
        JSONMember(key: "request_id", value: requestID.map { .string($0) } ?? .null),
        JSONMember(key: "device_token", value: deviceToken.map { .string($0) } ?? .null),
        JSONMember(key: "status", value: .integer(Int64(status))),
      ]))
  }
}
