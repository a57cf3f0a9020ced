import Bech32
import NostrEvent

/// Normalizes the public keys a relay information document gives (`pubkey`, `self`).
enum RelayPublicKey {
  /// The length of an `npub`: `npub1`, 52 data characters and a 6-character checksum.
  static let maxNpubLength = 63

  /// The key as 64 lowercase hex, from 64 hex digits of either case or an `npub`; nil otherwise.
  static func hex(from text: String) -> String? {
    if let id = NostrID(lenient: text) { return id.hex }
    return npubHex(text)
  }

  /// The key a bare `npub` encodes (either case, no `nostr:` prefix); nil for anything else.
  static func npubHex(_ text: String) -> String? {
    guard text.utf8.count <= maxNpubLength, text.lowercased().hasPrefix("npub1"),
      case .npub(let pubkey) = try? NIP19Entity(decoding: text)
    else { return nil }
    return pubkey
  }
}
