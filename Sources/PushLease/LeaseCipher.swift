import NIP44
import NostrEvent

/// The lease's one use of NIP-44 v2: the plaintext sealed from the account to the relay's push
/// key, and opened by the push key's holder.
///
/// Both directions derive the conversation key from one secret key and the other side's x-only
/// pubkey, so the builder and the validator share this seam and nothing else of NIP-44.
enum LeaseCipher {
  /// The longest plaintext NIP-44 v2 carries, in bytes.
  static let maxPlaintextBytes = NIP44.maxPlaintextBytes

  /// The NIP-44 payload of `plaintext` from `signer` to `recipient`; nil when the curve refuses
  /// the pair (a pubkey that is not a point), which a validated descriptor never holds.
  static func seal(_ plaintext: String, from signer: SecretKey, to recipient: String) -> String? {
    guard let conversation = try? NIP44.ConversationKey(secretKey: signer, publicKey: recipient) else {
      return nil
    }
    return try? NIP44.encrypt(plaintext, conversationKey: conversation)
  }

  /// The plaintext of `payload` sent by `author` to the holder of `key`; nil on any NIP-44
  /// failure (the payload, its MAC, its padding, its UTF-8, or an author that is not a point).
  static func open(_ payload: String, with key: SecretKey, from author: String) -> String? {
    guard let conversation = try? NIP44.ConversationKey(secretKey: key, publicKey: author) else { return nil }
    return try? NIP44.decrypt(payload, conversationKey: conversation)
  }
}
