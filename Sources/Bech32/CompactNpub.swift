/// The short form of a public key for a notification title when no display name is known.
///
/// A 64-hex key (either case) or a valid npub becomes the canonical npub's first 8 characters,
/// `…` and its last 4 (`npub14f8…9nsy`); anything else becomes `Someone`, so a malformed key
/// never reaches the user.
public enum CompactNpub {
  /// What is shown when the input is not a key.
  public static let fallback = "Someone"

  /// How many leading characters of the npub are kept.
  public static let headLength = 8

  /// How many trailing characters of the npub are kept.
  public static let tailLength = 4

  /// The compact form of `key` (64 hex digits or an npub), or `Someone`.
  public static func display(for key: String) -> String {
    guard let npub = canonicalNpub(key) else { return fallback }
    return String(npub.prefix(headLength)) + "\u{2026}" + String(npub.suffix(tailLength))
  }

  /// The canonical lower-case npub of a 64-hex key or an npub (either case), or nil.
  public static func canonicalNpub(_ key: String) -> String? {
    if HexBytes.isHex(key, byteCount: NIP19Entity.keyLength) {
      return try? NIP19Entity.npub(pubkey: key).encoded()
    }
    guard let decoded = try? Bech32.decode(key, limit: .nip19), decoded.hrp == "npub",
      let bytes = try? decoded.bytes(), bytes.count == NIP19Entity.keyLength
    else { return nil }
    return try? Bech32.encode(hrp: "npub", bytes: bytes, limit: .nip19)
  }
}
