/// The short form of a public key for a notification title when no display name is known.
///
/// A 64-hex key (either case) or a valid npub becomes the canonical npub's first 8 characters,
/// `…` and its last 4 (`npub14f8…9nsy`); anything else becomes `Someone`, so a malformed key
/// never reaches the user.
public enum CompactNpub {
  /// What is shown when the input is not a key.
  package static let fallback = "Someone"

  /// How many leading characters of the npub are kept.
  package static let headLength = 8

  /// How many trailing characters of the npub are kept.
  package static let tailLength = 4

  /// The compact form of `key` (64 hex digits or an npub), or `Someone`.
  public static func display(for key: String) -> String {
    guard let npub = canonicalNpub(key) else { return fallback }
    return HexBytes.withUTF8(npub) { npub in
      String(unsafeUninitializedCapacity: headLength + 3 + tailLength) { output in
        for index in 0..<headLength { output[index] = npub[index] }
        // U+2026 HORIZONTAL ELLIPSIS in UTF-8.
        output[headLength] = 0xE2
        output[headLength + 1] = 0x80
        output[headLength + 2] = 0xA6
        for index in 0..<tailLength {
          output[headLength + 3 + index] = npub[npub.count - tailLength + index]
        }
        return headLength + 3 + tailLength
      }
    }
  }

  /// The canonical lower-case npub of a 64-hex key or an npub (either case), or nil.
  public static func canonicalNpub(_ key: String) -> String? {
    if HexBytes.isHex(key, byteCount: NIP19Entity.keyLength) {
      return try? NIP19Entity.npub(pubkey: key).encoded()
    }
    guard let decoded = try? Bech32.decode(key, limit: .nip19), decoded.hrp == "npub",
      let bytes = try? decoded.bytes(), bytes.count == NIP19Entity.keyLength
    else { return nil }
    return try? Bech32.encode(knownPrefix: "npub", bytes: bytes, limit: .nip19)
  }
}
