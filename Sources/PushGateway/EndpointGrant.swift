import NIP44
import NostrEvent
import NostrJSON
import NostrPushCore

/// What a `g1.` endpoint grant seals: the delegation it stands for and the values admission
/// checks against the store. It holds no device token.
///
/// On the wire: `g1.<kid>.<payload>`, `payload` the NIP-44 v2 encryption under the `grant` key of
/// `kid`'s key file of the compact JSON
/// `{"v":1,"delegation_id","relay_pubkey","app_profile","endpoint_epoch","generation","expires_at"}`
/// in this order. Only the gateway opens it; the relay and the app carry it.
struct EndpointGrant: Sendable, Hashable {
  /// The wire prefix of this grant version.
  static let prefix = "g1"
  /// The longest grant accepted (the relay sends at most this much).
  static let maxBytes = 4096

  /// The delegation's id (32 lower-case hex digits).
  var delegationID: String
  /// The relay key allowed to use it.
  var relayPubkey: String
  /// The app profile of the installation.
  var appProfile: String
  /// The installation's endpoint epoch when the grant was issued.
  var endpointEpoch: Int64
  /// The delegation's generation.
  var generation: Int64
  /// The last second the grant is valid.
  var expiresAt: Int64

  /// The compact JSON sealed in the payload.
  var plaintext: String {
    JSONWriter.string(
      .object(
        JSONObject([
          "v": .integer(1), "delegation_id": .string(delegationID), "relay_pubkey": .string(relayPubkey),
          "app_profile": .string(appProfile), "endpoint_epoch": .integer(endpointEpoch),
          "generation": .integer(generation), "expires_at": .integer(expiresAt),
        ])))
  }

  /// The grant text sealed under `key`.
  func sealed(with key: PushGatewaySealingKey) throws(PushGatewayError) -> String {
    do {
      return Self.prefix + "." + key.kid + "." + (try NIP44.encrypt(plaintext, conversationKey: key.grant))
    } catch {
      throw PushGatewayError(code: .signingFailed, field: "grant", message: "NIP-44: \(error.code)")
    }
  }

  /// The grant `text` seals under one of `keys`; nil when it is not `g1.<kid>.<payload>` of a
  /// known kid, does not decrypt, or is not exactly the documented object.
  static func open(_ text: String, keys: PushGatewayKeys) -> EndpointGrant? {
    guard text.utf8.count <= maxBytes else { return nil }
    let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0] == prefix, let key = keys.key(kid: String(parts[1])),
      let plain = try? NIP44.decrypt(String(parts[2]), conversationKey: key.grant),
      let object = (try? JSONReader(maxDepth: 2, maxBytes: maxBytes).read(plain))?.objectValue,
      object.keys == [
        "v", "delegation_id", "relay_pubkey", "app_profile", "endpoint_epoch", "generation", "expires_at",
      ],
      object["v"] == .integer(1), let delegationID = object["delegation_id"]?.stringValue,
      let relayPubkey = object["relay_pubkey"]?.stringValue,
      let appProfile = object["app_profile"]?.stringValue,
      let epoch = object["endpoint_epoch"]?.integerValue, let generation = object["generation"]?.integerValue,
      let expiresAt = object["expires_at"]?.integerValue
    else { return nil }
    return EndpointGrant(
      delegationID: delegationID, relayPubkey: relayPubkey, appProfile: appProfile, endpointEpoch: epoch,
      generation: generation, expiresAt: expiresAt)
  }
}
