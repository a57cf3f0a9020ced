import Foundation

#if canImport(CSecp256k1)
import CSecp256k1
#else
import libsecp256k1
#endif

/// BIP-340 Schnorr signatures through libsecp256k1, with one context per job for the process.
///
/// Verification uses `secp256k1_context_static` (immutable, so every thread may share it) after
/// one `secp256k1_selftest()`. Signing and key derivation use one randomized context behind a
/// lock, because randomization protects the secret against side channels.
package enum Secp256k1 {
  /// The shared verification context, self-tested once.
  private static let verification = VerificationContext()

  /// `secp256k1_context_static` after the one `secp256k1_selftest()` of the process.
  ///
  /// `package` so that NIP44's ECDH shares this context and its self-test instead of running its
  /// own; the context is immutable and safe on every thread.
  package static var verifiedStaticContext: OpaquePointer { verification.pointer }
  /// The shared signing context.
  private static let signing = SigningContext()

  /// Whether `signature` (64 bytes) is a valid BIP-340 signature of `message` by the x-only
  /// `publicKey` (32 bytes). A public key that is not on the curve gives false.
  static func verify(
    signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, publicKey: UnsafeRawBufferPointer
  ) -> Bool {
    guard signature.count == 64, publicKey.count == 32 else { return false }
    let context = verification.pointer
    var key = secp256k1_xonly_pubkey()
    let keyBase = publicKey.baseAddress!.assumingMemoryBound(to: UInt8.self)
    guard secp256k1_xonly_pubkey_parse(context, &key, keyBase) == 1 else { return false }
    let signatureBase = signature.baseAddress!.assumingMemoryBound(to: UInt8.self)
    let messageBase = message.baseAddress?.assumingMemoryBound(to: UInt8.self)
    return secp256k1_schnorrsig_verify(context, signatureBase, messageBase, message.count, &key) == 1
  }

  /// Whether `secretKey` (32 bytes) is a valid secret key (non-zero, below the group order).
  static func isValidSecretKey(_ secretKey: UnsafeRawBufferPointer) -> Bool {
    guard secretKey.count == 32 else { return false }
    return secp256k1_ec_seckey_verify(
      verification.pointer, secretKey.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 1
  }

  /// The 32-byte x-only public key of a valid secret key.
  static func xOnlyPublicKey(secretKey: UnsafeRawBufferPointer) -> [UInt8]? {
    signing.withKeypair(secretKey: secretKey) { context, keypair in
      var xonly = secp256k1_xonly_pubkey()
      guard secp256k1_keypair_xonly_pub(context, &xonly, nil, keypair) == 1 else { return nil }
      var output = [UInt8](repeating: 0, count: 32)
      guard secp256k1_xonly_pubkey_serialize(context, &output, &xonly) == 1 else { return nil }
      return output
    } ?? nil
  }

  /// The BIP-340 signature of `message` (any length) with `secretKey` and the 32 bytes `auxRand`.
  static func sign(
    message: UnsafeRawBufferPointer, secretKey: UnsafeRawBufferPointer, auxRand: UnsafeRawBufferPointer
  ) -> [UInt8]? {
    guard auxRand.count == 32 else { return nil }
    return signing.withKeypair(secretKey: secretKey) { context, keypair in
      var extra = secp256k1_schnorrsig_extraparams(
        magic: (0xda, 0x6f, 0xb3, 0x8c), noncefp: nil,
        ndata: UnsafeMutableRawPointer(mutating: auxRand.baseAddress))
      var signature = [UInt8](repeating: 0, count: 64)
      let messageBase = message.baseAddress?.assumingMemoryBound(to: UInt8.self)
      let status = secp256k1_schnorrsig_sign_custom(
        context, &signature, messageBase, message.count, keypair, &extra)
      return status == 1 ? signature : nil
    } ?? nil
  }
}

/// Owns the pointer to the static verification context after the library's self-test.
///
/// `@unchecked Sendable`: the context is immutable, and libsecp256k1 documents const contexts
/// as safe to use from many threads at once.
private final class VerificationContext: @unchecked Sendable {
  let pointer: OpaquePointer

  init() {
    secp256k1_selftest()
    pointer = nostrpushkit_context_static()
  }
}

/// Owns the randomized signing context and serializes its use.
///
/// `@unchecked Sendable`: every use of the mutable context happens while `lock` is held.
private final class SigningContext: @unchecked Sendable {
  private let context: OpaquePointer
  private let lock = NSLock()

  init() {
    context = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE))!
    var seed = SystemRandom.bytes(32)
    _ = secp256k1_context_randomize(context, &seed)
    SystemRandom.wipe(&seed)
  }

  deinit {
    secp256k1_context_destroy(context)
  }

  /// Runs `body` with a keypair made from `secretKey`; nil when the key is invalid. The keypair
  /// is wiped afterwards.
  func withKeypair<Result>(
    secretKey: UnsafeRawBufferPointer,
    _ body: (OpaquePointer, UnsafePointer<secp256k1_keypair>) -> Result
  ) -> Result? {
    guard secretKey.count == 32 else { return nil }
    lock.lock()
    defer { lock.unlock() }
    var keypair = secp256k1_keypair()
    defer {
      withUnsafeMutableBytes(of: &keypair) { SystemRandom.wipe($0) }
    }
    let keyBase = secretKey.baseAddress!.assumingMemoryBound(to: UInt8.self)
    guard secp256k1_keypair_create(context, &keypair, keyBase) == 1 else { return nil }
    return body(context, &keypair)
  }
}
