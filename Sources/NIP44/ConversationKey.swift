import NostrEvent

#if canImport(CSecp256k1)
import CSecp256k1
#else
import libsecp256k1
#endif

extension NIP44 {
  /// The 32-byte key two parties share for NIP-44 v2: HKDF-extract of their ECDH x coordinate.
  ///
  /// It is the same from both sides (`conv(a, B) == conv(b, A)`), so a caller may derive it once
  /// per key pair and cache it. The bytes live in memory this object owns, wiped (by
  /// `SystemRandom.wipe`) and freed in `deinit`, as `SecretKey`'s are.
  public final class ConversationKey: @unchecked Sendable {
    // `@unchecked Sendable`: `storage` is written once in init and wiped in deinit, never between.
    private let storage: UnsafeMutableRawBufferPointer

    /// The number of bytes of a conversation key.
    package static let byteCount = 32

    /// The salt of the HKDF extract: the 8 ASCII bytes `nip44-v2`.
    static let salt: [UInt8] = Array("nip44-v2".utf8)

    /// Derives the key of `secretKey` and the other party's x-only `publicKey` (64 hex, either
    /// case).
    ///
    /// Throws `invalid_public_key` when the text is not 64 hex characters or not the x of a curve
    /// point, `invalid_secret_key` when ECDH refuses the scalar.
    public init(secretKey: SecretKey, publicKey: String) throws(NIP44Error) {
      var compressed = [UInt8](repeating: 0, count: 33)
      compressed[0] = 0x02
      let decoded = compressed.withUnsafeMutableBytes { raw in
        Hex.decode(publicKey, into: UnsafeMutableRawBufferPointer(rebasing: raw[1...]))
      }
      guard decoded else {
        throw NIP44Error(code: .invalidPublicKey, message: "the public key is not 64 hex characters")
      }
      let context = Secp256k1.verifiedStaticContext
      var point = secp256k1_pubkey()
      guard secp256k1_ec_pubkey_parse(context, &point, compressed, 33) == 1 else {
        throw NIP44Error(
          code: .invalidPublicKey, message: "the public key is not the x coordinate of a curve point")
      }
      let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.byteCount, alignment: 16)
      let sharedX = UnsafeMutableRawBufferPointer.allocate(byteCount: 32, alignment: 16)
      defer {
        SystemRandom.wipe(sharedX)
        sharedX.deallocate()
      }
      let status = secretKey.withUnsafeBytes { secret in
        secp256k1_ecdh(
          context, sharedX.baseAddress!.assumingMemoryBound(to: UInt8.self), &point,
          secret.baseAddress!.assumingMemoryBound(to: UInt8.self),
          { output, x32, _, _ in
            // The raw x coordinate, unhashed: NIP-44 hashes it with HKDF itself.
            guard let output, let x32 else { return 0 }
            output.update(from: x32, count: 32)
            return 1
          }, nil)
      }
      guard status == 1 else {
        SystemRandom.wipe(storage)
        storage.deallocate()
        throw NIP44Error(code: .invalidSecretKey, message: "ECDH refused the secret key")
      }
      Self.salt.withUnsafeBytes { salt in
        HKDF.extract(salt: salt, ikm: UnsafeRawBufferPointer(sharedX), into: storage)
      }
      self.storage = storage
    }

    /// Wraps 32 bytes of a key derived before (a cache); throws `invalid_conversation_key` for
    /// another length.
    package init(bytes: [UInt8]) throws(NIP44Error) {
      guard bytes.count == Self.byteCount else {
        throw NIP44Error(code: .invalidConversationKey, message: "expected 32 bytes, got \(bytes.count)")
      }
      storage = .allocate(byteCount: Self.byteCount, alignment: 16)
      storage.copyBytes(from: bytes)
    }

    /// Wraps a key given as 64 hex characters (either case); throws `invalid_conversation_key`
    /// otherwise.
    package convenience init(hex: String) throws(NIP44Error) {
      var bytes = [UInt8](repeating: 0, count: Self.byteCount)
      defer { SystemRandom.wipe(&bytes) }
      let decoded = bytes.withUnsafeMutableBytes { Hex.decode(hex, into: $0) }
      guard decoded else {
        throw NIP44Error(
          code: .invalidConversationKey, message: "the conversation key is not 64 hex characters")
      }
      try self.init(bytes: bytes)
    }

    deinit {
      SystemRandom.wipe(storage)
      storage.deallocate()
    }

    /// The key as 64 lowercase hex characters, for a cache or the CLI.
    package var hex: String { Hex.encode(UnsafeRawBufferPointer(storage)) }

    /// Runs `body` with the 32 key bytes, which stay in this object's memory.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
      try body(UnsafeRawBufferPointer(storage))
    }
  }
}
