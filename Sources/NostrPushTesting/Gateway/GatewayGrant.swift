import NostrEvent
import NostrJSON

#if canImport(NIP44)
import NIP44
#endif

/// What an endpoint grant seals: the relay key it was issued to, the device token, the grant's
/// generation and expiry.
///
/// The grant on the wire is the NIP-44 v2 payload of the compact JSON
/// `{"v":1,"relay_pubkey":…,"device_token":…,"generation":n,"expires_at":n}` under the gateway's
/// conversation key with itself: opaque to relay and app, and nothing is stored to open it.
struct GatewayGrant: Sendable, Hashable {
  /// The relay key allowed to use the grant.
  var relayPubkey: String
  /// The device token (lowercase hex).
  var deviceToken: String
  /// The gateway's generation of this endpoint (what a 410 reports).
  var generation: Int64
  /// The last second the grant is valid.
  var expiresAt: Int64

  /// The grant's plaintext, compact JSON in the documented key order.
  var plaintext: String {
    JSONWriter.string(
      .object(
        JSONObject([
          JSONMember(key: "v", value: .integer(1)),
          JSONMember(key: "relay_pubkey", value: .string(relayPubkey)),
          JSONMember(key: "device_token", value: .string(deviceToken)),
          JSONMember(key: "generation", value: .integer(generation)),
          JSONMember(key: "expires_at", value: .integer(expiresAt)),
        ])))
  }

  /// Creates a grant.
  init(relayPubkey: String, deviceToken: String, generation: Int64, expiresAt: Int64) {
    self.relayPubkey = relayPubkey
    self.deviceToken = deviceToken
    self.generation = generation
    self.expiresAt = expiresAt
  }

  /// The grant's values from its plaintext; nil unless exactly the documented object.
  init?(plaintext text: String) {
    guard let object = (try? JSONReader(maxDepth: 2).read(text))?.objectValue,
      object.keys == ["v", "relay_pubkey", "device_token", "generation", "expires_at"],
      object["v"]?.integerValue == 1,
      let relay = object["relay_pubkey"]?.stringValue,
      let token = object["device_token"]?.stringValue,
      let generation = object["generation"]?.integerValue,
      let expiresAt = object["expires_at"]?.integerValue
    else { return nil }
    self.init(relayPubkey: relay, deviceToken: token, generation: generation, expiresAt: expiresAt)
  }
}

/// Seals and opens grants under the gateway's NIP-44 v2 conversation key with itself.
///
/// Derived once per gateway (one ECDH), it is the fixture's only use of NIP-44.
struct GatewayGrantSeal: Sendable {
  #if canImport(NIP44)
  private let key: NIP44.ConversationKey

  /// The seal of the gateway holding `secretKey`; nil if the curve refuses the key.
  init?(secretKey: SecretKey) {
    guard let key = try? NIP44.ConversationKey(secretKey: secretKey, publicKey: secretKey.publicKeyHex) else {
      return nil
    }
    self.key = key
  }

  /// The sealed grant, or nil if encryption fails.
  func seal(_ grant: GatewayGrant) -> String? {
    try? NIP44.encrypt(grant.plaintext, conversationKey: key)
  }

  /// The grant `payload` seals; nil when it does not decrypt or lacks the documented shape.
  func open(_ payload: String) -> GatewayGrant? {
    guard let text = try? NIP44.decrypt(payload, conversationKey: key) else { return nil }
    return GatewayGrant(plaintext: text)
  }
  #else
  // Placeholder while the NIP44 module has not landed: nothing is sealed or opened.
  init?(secretKey: SecretKey) {}

  func seal(_ grant: GatewayGrant) -> String? { nil }

  func open(_ payload: String) -> GatewayGrant? { nil }
  #endif
}
