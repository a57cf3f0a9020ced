import NostrEvent

extension NIP44 {
  /// The per-message keys of one nonce: `HKDF-expand(conversation key, info: nonce, L: 76)` split
  /// into the ChaCha20 key (32), the ChaCha20 nonce (12) and the HMAC key (32).
  ///
  /// The 76 bytes live in memory this value owns, wiped and freed when it ends; it cannot be copied.
  struct MessageKeys: ~Copyable {
    /// The bytes HKDF expands per message.
    static let byteCount = 76

    private let storage: UnsafeMutableRawBufferPointer

    /// The keys of `nonce` (32 bytes) under `conversationKey`.
    init(conversationKey: ConversationKey, nonce: UnsafeRawBufferPointer) {
      storage = .allocate(byteCount: Self.byteCount, alignment: 16)
      conversationKey.withUnsafeBytes { prk in
        HKDF.expand(prk: prk, info: nonce, into: storage)
      }
    }

    deinit {
      SystemRandom.wipe(storage)
      storage.deallocate()
    }

    /// Bytes 0..<32: the ChaCha20 key.
    var chachaKey: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<32]) }
    /// Bytes 32..<44: the ChaCha20 nonce.
    var chachaNonce: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[32..<44]) }
    /// Bytes 44..<76: the HMAC-SHA256 key.
    var hmacKey: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[44..<76]) }
  }
}
