import NostrEvent

/// HKDF with SHA-256 (RFC 5869), as its two separate steps, the way NIP-44 uses them.
///
/// The conversation key is an `extract`; the message keys are an `expand` of it with the nonce.
package enum HKDF {
  /// The longest output of `expand`: 255 blocks of 32 bytes (RFC 5869 §2.3).
  package static let maxOutputCount = 255 * HMACSHA256.tagCount

  /// Writes `PRK = HMAC(key: salt, message: ikm)` (32 bytes) into `prk`.
  package static func extract(
    salt: UnsafeRawBufferPointer, ikm: UnsafeRawBufferPointer, into prk: UnsafeMutableRawBufferPointer
  ) {
    var mac = HMACSHA256(key: salt)
    mac.update(ikm)
    mac.finalize(into: prk)
  }

  /// Fills `output` (at most 8 160 bytes) with the first `output.count` bytes of
  /// `T(1) ‖ T(2) ‖ …`, `T(i) = HMAC(prk, T(i−1) ‖ info ‖ byte(i))`, `T(0)` empty.
  package static func expand(
    prk: UnsafeRawBufferPointer, info: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
  ) {
    precondition(output.count <= maxOutputCount)
    withUnsafeTemporaryAllocation(byteCount: HMACSHA256.tagCount, alignment: 16) { block in
      defer { SystemRandom.wipe(block) }
      var written = 0
      var counter: UInt8 = 1
      while written < output.count {
        var mac = HMACSHA256(key: prk)
        if counter > 1 { mac.update(UnsafeRawBufferPointer(block)) }
        mac.update(info)
        withUnsafeBytes(of: counter) { mac.update($0) }
        mac.finalize(into: block)
        let take = min(HMACSHA256.tagCount, output.count - written)
        output.baseAddress!.advanced(by: written).copyMemory(from: block.baseAddress!, byteCount: take)
        written += take
        counter &+= 1
      }
    }
  }
}
