import NostrEvent
import NostrJSON
import NostrPushCore

/// A route's JSON body read strictly: at most ``maxBytes``, one object whose member names are
/// exactly the required ones plus any of the optional ones, written in compact form (the bytes
/// are what the package's compact writer makes of the object, so no white space, no alternative
/// escapes, no duplicate members), `"v":1`. The typed accessors below return nil for a member of
/// the wrong type or outside its bounds; the route answers 400 `invalid_request` then.
struct GatewayRequestBody {
  /// The largest body of any gateway route (8192 bytes; more is 413).
  static let maxBytes = 8192
  /// The largest generation (2^53 − 1, a JSON-safe integer).
  static let maxGeneration: Int64 = (1 << 53) - 1
  /// The hex digits of an installation handle (16 random bytes).
  static let handleDigits = 32

  private let object: JSONObject

  /// The body when `bytes` are exactly such an object, else nil.
  init?(_ bytes: [UInt8], required: Set<String>, optional: Set<String> = []) {
    guard bytes.count <= Self.maxBytes,
      let object = (try? JSONReader(maxDepth: 2, maxBytes: Self.maxBytes).read(bytes))?.objectValue,
      JSONWriter.bytes(.object(object)) == bytes
    else { return nil }
    let names = Set(object.keys)
    guard required.isSubset(of: names), names.isSubset(of: required.union(optional)),
      object["v"] == .integer(1)
    else { return nil }
    self.object = object
  }

  /// The object as read (members in the body's order): an App Attest assertion's transcript
  /// covers it.
  var json: JSONObject { object }

  /// Whether the member `name` is present.
  func has(_ name: String) -> Bool { object[name] != nil }

  /// A string member.
  func string(_ name: String) -> String? { object[name]?.stringValue }

  /// An integer member.
  func integer(_ name: String) -> Int64? { object[name]?.integerValue }

  /// An installation handle: 32 lower-case hex digits.
  var handle: String? {
    guard let text = string("installation_handle"), Hex.isLowercaseHex(text, length: Self.handleDigits) else {
      return nil
    }
    return text
  }

  /// A relay key: 64 lower-case hex digits.
  var relayPubkey: String? {
    guard let text = string("relay_pubkey"), NostrID(text) != nil else { return nil }
    return text
  }

  /// A device token: 64 to 200 lower-case hex digits of even count (what APNs takes).
  var endpoint: String? {
    guard let text = string("endpoint"), APNsWake.isDeviceToken(text) else { return nil }
    return text
  }

  /// `expires_at` when it is after `now` and at most `maxAhead` seconds ahead.
  func expiresAt(now: Int64, maxAhead: Int64) -> Int64? {
    guard let value = integer("expires_at"), value > now, value - now <= maxAhead else { return nil }
    return value
  }

  /// `generation` within 1 … 2^53 − 1.
  var generation: Int64? {
    guard let value = integer("generation"), (1...Self.maxGeneration).contains(value) else { return nil }
    return value
  }
}

/// The delivery body exactly as the relay's `GatewayClient` writes it:
/// `{"v":1,"endpoint_grant":"…","request_id":"<uuid>","expires_at":n}`, compact, in this order.
struct DeliveryRequestBody {
  /// The grant.
  var grant: String
  /// The relay's `request_id`: a lower-case UUID v4.
  var requestID: String
  /// The wake's expiry.
  var expiresAt: Int64

  /// The values when `bytes` are exactly that form (grant 1…4096 bytes), else nil.
  init?(_ bytes: [UInt8]) {
    guard
      let object = (try? JSONReader(maxDepth: 2, maxBytes: GatewayRequestBody.maxBytes).read(bytes))?
        .objectValue,
      object.keys == ["v", "endpoint_grant", "request_id", "expires_at"], object["v"] == .integer(1),
      let grant = object["endpoint_grant"]?.stringValue,
      (1...EndpointGrant.maxBytes).contains(grant.utf8.count),
      let requestID = object["request_id"]?.stringValue, LowercaseUUID.isValidV4(requestID),
      let expiresAt = object["expires_at"]?.integerValue, JSONWriter.bytes(.object(object)) == bytes
    else { return nil }
    self.grant = grant
    self.requestID = requestID
    self.expiresAt = expiresAt
  }
}
