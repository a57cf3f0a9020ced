import NostrEvent

/// HMAC-SHA256 (RFC 2104) over `NostrEvent`'s SHA-256, fed in pieces.
///
/// NIP-44 authenticates `nonce ‖ ciphertext` and HKDF chains `T(i−1) ‖ info ‖ i`; feeding pieces
/// avoids concatenating them. Keys are at most one 64-byte block (NIP-44 uses 8 and 32 bytes), so
/// the long-key hashing step of RFC 2104 is not needed. The key blocks are wiped as soon as both
/// hashers have absorbed them, and the keyed hashers when the tag is written.
package struct HMACSHA256 {
  /// The SHA-256 block size, and the longest key accepted.
  package static let blockCount = 64
  /// The length of a tag.
  package static let tagCount = 32

  private var inner = SHA256Hasher()
  private var outer = SHA256Hasher()

  /// A MAC computation keyed with `key` (at most 64 bytes).
  package init(key: UnsafeRawBufferPointer) {
    precondition(key.count <= Self.blockCount, "HMAC keys longer than one block are not supported")
    withUnsafeTemporaryAllocation(byteCount: Self.blockCount, alignment: 16) { block in
      defer { SystemRandom.wipe(block) }
      for index in 0..<Self.blockCount {
        block[index] = (index < key.count ? key[index] : 0) ^ 0x36
      }
      inner.update(UnsafeRawBufferPointer(block))
      for index in 0..<Self.blockCount {
        block[index] ^= 0x36 ^ 0x5c
      }
      outer.update(UnsafeRawBufferPointer(block))
    }
  }

  /// Appends `bytes` to the authenticated message.
  package mutating func update(_ bytes: UnsafeRawBufferPointer) {
    inner.update(bytes)
  }

  /// Writes the 32-byte tag into the first 32 bytes of `tag`; wipes both hashers.
  package mutating func finalize(into tag: UnsafeMutableRawBufferPointer) {
    precondition(tag.count >= Self.tagCount)
    withUnsafeTemporaryAllocation(byteCount: NostrSHA256.digestCount, alignment: 16) { innerDigest in
      defer { SystemRandom.wipe(innerDigest) }
      inner.finalize(into: innerDigest)
      outer.update(UnsafeRawBufferPointer(innerDigest))
      outer.finalize(into: tag)
    }
  }

  /// The tag of `message` under `key`, for tests and one-shot callers.
  package static func tag(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var mac = key.withUnsafeBytes { HMACSHA256(key: $0) }
    message.withUnsafeBytes { mac.update($0) }
    return [UInt8](unsafeUninitializedCapacity: tagCount) { output, initialized in
      mac.finalize(into: UnsafeMutableRawBufferPointer(output))
      initialized = tagCount
    }
  }

  /// Whether the first 32 bytes of `a` and `b` are equal, in time that does not depend on where
  /// they differ: the OR of the XORs of all 32 byte pairs, no early exit.
  package static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count >= tagCount, b.count >= tagCount else { return false }
    var difference: UInt8 = 0
    for index in 0..<tagCount {
      difference |= a[index] ^ b[index]
    }
    return difference == 0
  }
}
