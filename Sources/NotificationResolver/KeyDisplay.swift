import Bech32
import NostrEvent

/// How keys are shown and read in notifications: npub, compact npub, and profile mentions.
enum KeyDisplay {
  /// The npub of a 64-hex key, or nil when it is not one.
  static func npub(_ pubkey: String) -> String? {
    CompactNpub.canonicalNpub(pubkey)
  }

  /// The compact npub (`npub14f8…9nsy`) of a key, or nil when it is not one (the caller then
  /// shows `Someone`).
  static func compact(_ pubkey: String) -> String? {
    let text = CompactNpub.display(for: pubkey)
    return text == CompactNpub.fallback ? nil : text
  }

  /// The public key (64 lowercase hex) named by an `npub1…` or `nprofile1…` entity, or nil.
  static func pubkey(fromProfileEntity entity: String) -> String? {
    switch try? NIP19Entity(decoding: entity) {
    case .npub(let pubkey)?, .nprofile(let pubkey, _)?: pubkey.lowercased()
    default: nil
    }
  }

  /// The public key named by a 64-hex key (either case) or an npub, or nil.
  static func pubkey(fromKeyText text: String) -> String? {
    if let id = NostrID(lenient: text) { return id.hex }
    if case .npub(let pubkey)? = try? NIP19Entity(decoding: text) { return pubkey.lowercased() }
    return nil
  }
}
