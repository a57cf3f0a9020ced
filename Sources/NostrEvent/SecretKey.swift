/// A secp256k1 secret key that signs events and NIP-98 headers.
///
/// The 32 bytes live in memory this object owns and are wiped when it is released, so a key
/// never lingers in freed memory.
public final class SecretKey: @unchecked Sendable {
  // `@unchecked Sendable`: `storage` is written once in init and wiped in deinit, never in between.
  private let storage: UnsafeMutableRawBufferPointer
  private let publicKeyBytes: [UInt8]

  /// Creates a key from 64 hex characters (either case).
  public convenience init(hex: String) throws {
    guard var bytes = Hex.decode(hex), bytes.count == 32 else {
      throw EventError.invalid("secret_key", "expected 64 hex characters")
    }
    defer { SystemRandom.wipe(&bytes) }
    try self.init(bytes: bytes)
  }

  /// Creates a key from 32 bytes; throws when they are zero or not below the curve order.
  public init(bytes: [UInt8]) throws {
    guard bytes.count == 32 else {
      throw EventError.invalid("secret_key", "expected 32 bytes, got \(bytes.count)")
    }
    let valid = bytes.withUnsafeBytes { Secp256k1.isValidSecretKey($0) }
    guard valid else { throw EventError.invalid("secret_key", "not a valid secp256k1 secret key") }
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 32, alignment: 16)
    storage.copyBytes(from: bytes)
    guard let publicKey = Secp256k1.xOnlyPublicKey(secretKey: UnsafeRawBufferPointer(storage)) else {
      SystemRandom.wipe(storage)
      storage.deallocate()
      throw EventError.invalid("secret_key", "no public key for this secret key")
    }
    self.storage = storage
    self.publicKeyBytes = publicKey
  }

  deinit {
    SystemRandom.wipe(storage)
    storage.deallocate()
  }

  /// A new key from the system's random generator.
  public static func generate() -> SecretKey {
    while true {
      var bytes = SystemRandom.bytes(32)
      defer { SystemRandom.wipe(&bytes) }
      if let key = try? SecretKey(bytes: bytes) { return key }
    }
  }

  /// Runs `body` with the 32 secret bytes, which stay in this key's memory.
  ///
  /// `package` so that NIP44's ECDH reads the scalar without a copy; `body` must not keep or copy
  /// the pointer.
  package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try body(UnsafeRawBufferPointer(storage))
  }

  /// The x-only public key as 64 lowercase hex characters (an event's `pubkey`).
  public var publicKeyHex: String { Hex.encode(publicKeyBytes) }

  /// The BIP-340 signature of `message` with 32 bytes of fresh system randomness.
  func sign(message: [UInt8]) -> [UInt8]? {
    var auxRand = SystemRandom.bytes(32)
    defer { SystemRandom.wipe(&auxRand) }
    return sign(message: message, auxRand: auxRand)
  }

  /// The BIP-340 signature of `message` with the given 32 bytes of aux randomness (for the
  /// BIP-340 vectors, which fix it).
  func sign(message: [UInt8], auxRand: [UInt8]) -> [UInt8]? {
    message.withUnsafeBytes { message in
      auxRand.withUnsafeBytes { auxRand in
        Secp256k1.sign(message: message, secretKey: UnsafeRawBufferPointer(storage), auxRand: auxRand)
      }
    }
  }
}
