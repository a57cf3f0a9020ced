import NostrEvent

/// A TEST-ONLY key of the demo data, derived from its role so that regenerating the data gives the
/// same public keys and the same event ids.
struct DemoKey {
  /// The role (`relay`, `account`, `alice`, `carol`).
  let role: String
  /// The secret key: SHA-256 of a fixed, public phrase. Never use it for anything real.
  let secret: SecretKey
  /// The secret key's 64 lowercase hex characters, written to `keys.json`.
  let secretHex: String

  /// Derives the key of `role`.
  init(role: String) throws {
    let bytes = NostrSHA256.hash(Array("NostrPushKit demo fixture key: \(role) (TEST KEY ONLY)".utf8))
    self.role = role
    self.secret = try SecretKey(bytes: bytes)
    self.secretHex = Hex.encode(bytes)
  }

  /// The x-only public key, 64 lowercase hex characters.
  var pubkey: String { secret.publicKeyHex }
}
