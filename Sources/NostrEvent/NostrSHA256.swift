#if canImport(CryptoKit)
import CryptoKit
import Foundation
#endif

/// SHA-256 (FIPS 180-4), written in Swift so that the module needs no crypto library (CryptoKit
/// is used instead where it exists, and the CPU's SHA instructions through `CSHA256` on x86-64
/// CPUs that have them).
///
/// It computes every event id, so it works on whole 64-byte blocks straight from the caller's
/// memory, without copying or allocating per byte. Use `hash(_:)` for a NIP-98 `payload` tag or
/// any digest an app compares with one a relay sent.
///
/// Named `NostrSHA256`, not `SHA256`, so that a file importing both this module and CryptoKit
/// (which has its own `SHA256`) needs no module qualification.
public enum NostrSHA256 {
  /// The size of a digest in bytes.
  package static let digestCount = 32

  /// Which implementation hashes in this process: `"CryptoKit"`, `"SHA-NI"` (the x86-64 SHA
  /// instructions through `CSHA256`) or `"Swift"`; benchmarks and diagnostics print it.
  package static var implementationName: String {
    #if canImport(CryptoKit)
    "CryptoKit"
    #else
    SHA256State.Engine.preferred == .hardware ? "SHA-NI" : "Swift"
    #endif
  }

  /// The 32-byte SHA-256 digest of `bytes`, such as a NIP-98 `payload` tag or a lease's
  /// endpoint hash.
  public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
    if let digest = bytes.withContiguousStorageIfAvailable({ hash(buffer: UnsafeRawBufferPointer($0)) }) {
      return digest
    }
    return Array(bytes).withUnsafeBytes { hash(buffer: $0) }
  }

  /// The 32-byte SHA-256 digest of the bytes in `buffer`.
  package static func hash(buffer: UnsafeRawBufferPointer) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: digestCount) { output, initialized in
      hash(buffer: buffer, into: UnsafeMutableRawBufferPointer(output))
      initialized = digestCount
    }
  }

  /// Writes the digest of `buffer` into the first 32 bytes of `digest`.
  static func hash(buffer: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
    precondition(digest.count >= digestCount)
    #if canImport(CryptoKit)
    // Apple platforms: the system implementation uses the CPU's SHA instructions.
    CryptoKit.SHA256.hash(data: buffer).withUnsafeBytes { digest.copyMemory(from: $0) }
    #else
    portableHash(buffer: buffer, into: digest)
    #endif
  }

  /// The digest of `buffer` by the Swift rounds, whatever the CPU has: `package` so that the
  /// benchmarks report the engine that CPUs without SHA instructions (and valgrind) run.
  package static func hashWithSwiftEngine(
    buffer: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer
  ) {
    portableHash(buffer: buffer, into: digest, engine: .swift)
  }

  /// The implementation of every platform without CryptoKit, with the given block engine.
  static func portableHash(
    buffer: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer,
    engine: SHA256State.Engine = .preferred
  ) {
    var state = SHA256State()
    let fullBlocks = buffer.count / 64
    if let base = buffer.baseAddress {
      state.compress(base, count: fullBlocks, engine: engine)
    }
    // The tail: the remaining bytes, 0x80, zeros and the bit length, in one or two blocks.
    withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
      let remaining = buffer.count - fullBlocks * 64
      if remaining > 0 {
        tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[(fullBlocks * 64)...]))
      }
      let tailCount = remaining < 56 ? 64 : 128
      tail[remaining] = 0x80
      (tail.baseAddress! + remaining + 1).initializeMemory(
        as: UInt8.self, repeating: 0, count: tailCount - 8 - remaining - 1)
      let bitLength = UInt64(buffer.count) &* 8
      tail.storeBytes(of: bitLength.bigEndian, toByteOffset: tailCount - 8, as: UInt64.self)
      state.compress(UnsafeRawPointer(tail.baseAddress!), count: tailCount / 64, engine: engine)
    }
    state.write(to: digest)
  }
}
