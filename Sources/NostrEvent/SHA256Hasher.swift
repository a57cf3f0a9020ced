/// SHA-256 over input given in pieces, for callers that hash a message they never hold whole.
///
/// `package` for NIP44's HMAC, which hashes `key ⊕ ipad ‖ nonce ‖ ciphertext` without
/// concatenating them. It uses the same block engines as `NostrSHA256.hash` (not CryptoKit, which the
/// one-shot digest prefers on Apple platforms; both give the same digest). A hasher keyed by a
/// secret (HMAC's) is wiped with `wipe()` once done.
package struct SHA256Hasher {
  private var state = SHA256State()
  /// The bytes of a block not yet full, kept in place so that no update allocates.
  private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
    0, 0, 0, 0, 0, 0, 0, 0
  )
  private var pendingCount = 0
  private var totalCount: UInt64 = 0

  /// A hasher at the start of a message.
  package init() {}

  /// Appends the bytes of `buffer` to the message.
  package mutating func update(_ buffer: UnsafeRawBufferPointer) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    totalCount &+= UInt64(buffer.count)
    var offset = 0
    if pendingCount > 0 {
      let take = min(64 - pendingCount, buffer.count)
      let start = pendingCount
      withUnsafeMutableBytes(of: &pending) { block in
        block.baseAddress!.advanced(by: start).copyMemory(from: base, byteCount: take)
      }
      pendingCount += take
      offset = take
      guard pendingCount == 64 else { return }
      compressPending()
    }
    let fullBlocks = (buffer.count - offset) / 64
    if fullBlocks > 0 {
      state.compress(base + offset, count: fullBlocks)
      offset += fullBlocks * 64
    }
    let rest = buffer.count - offset
    if rest > 0 {
      withUnsafeMutableBytes(of: &pending) { block in
        block.baseAddress!.copyMemory(from: base + offset, byteCount: rest)
      }
      pendingCount = rest
    }
  }

  /// Appends the bytes of `bytes` to the message.
  package mutating func update(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { update($0) }
  }

  /// Writes the digest of the message into the first 32 bytes of `digest` and wipes the hasher.
  package mutating func finalize(into digest: UnsafeMutableRawBufferPointer) {
    precondition(digest.count >= NostrSHA256.digestCount)
    let bitLength = totalCount &* 8
    let count = pendingCount
    withUnsafeMutableBytes(of: &pending) { block in
      block[count] = 0x80
      for index in (count + 1)..<64 { block[index] = 0 }
    }
    if count >= 56 {
      compressPending()
      withUnsafeMutableBytes(of: &pending) { block in
        for index in 0..<64 { block[index] = 0 }
      }
    }
    withUnsafeMutableBytes(of: &pending) { block in
      block.storeBytes(of: bitLength.bigEndian, toByteOffset: 56, as: UInt64.self)
    }
    compressPending()
    state.write(to: digest)
    wipe()
  }

  /// The 32-byte digest of the message; wipes the hasher.
  package mutating func finalize() -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: NostrSHA256.digestCount) { output, initialized in
      finalize(into: UnsafeMutableRawBufferPointer(output))
      initialized = NostrSHA256.digestCount
    }
  }

  /// Overwrites the state and the pending bytes with zeros, so that a keyed state does not linger.
  package mutating func wipe() {
    withUnsafeMutableBytes(of: &state) { SystemRandom.wipe($0) }
    withUnsafeMutableBytes(of: &pending) { SystemRandom.wipe($0) }
    pendingCount = 0
    totalCount = 0
  }

  private mutating func compressPending() {
    var block = pending
    withUnsafeBytes(of: &block) { state.compress($0.baseAddress!, count: 1) }
    withUnsafeMutableBytes(of: &block) { SystemRandom.wipe($0) }
    pendingCount = 0
  }
}
