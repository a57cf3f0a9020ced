/// SHA-256 over bytes that arrive in pieces: whole 64-byte blocks are compressed as they come
/// (`SHA256State`, the CPU's SHA instructions where there are), the rest waits for the next piece.
///
/// For a serialization too long to hold at once (a roster's, `EventDocumentVerifier`): it is
/// written into a small window and hashed window by window.
struct SHA256Stream {
  private var state = SHA256State()
  private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
    0, 0, 0, 0, 0, 0, 0, 0
  )
  private var pendingCount = 0
  private var total = 0

  /// Hashes `count` bytes at `bytes`.
  mutating func update(_ bytes: UnsafeRawPointer, count: Int) {
    var bytes = bytes
    var count = count
    total += count
    withUnsafeMutableBytes(of: &pending) { block in
      if pendingCount > 0 {
        let taken = min(64 - pendingCount, count)
        (block.baseAddress! + pendingCount).copyMemory(from: bytes, byteCount: taken)
        pendingCount += taken
        bytes += taken
        count -= taken
        guard pendingCount == 64 else { return }
        state.compress(UnsafeRawPointer(block.baseAddress!), count: 1)
        pendingCount = 0
      }
      let whole = count / 64
      if whole > 0 { state.compress(bytes, count: whole) }
      let rest = count - whole * 64
      if rest > 0 { block.baseAddress!.copyMemory(from: bytes + whole * 64, byteCount: rest) }
      pendingCount = rest
    }
  }

  /// Writes the digest into the first 32 bytes of `digest` (the padding and the bit length end
  /// the message; the stream is then spent).
  mutating func finish(into digest: UnsafeMutableRawBufferPointer) {
    let bitLength = UInt64(total) &* 8
    var padding: [UInt8] =
      [0x80] + [UInt8](repeating: 0, count: (pendingCount < 56 ? 55 : 119) - pendingCount)
    withUnsafeBytes(of: bitLength.bigEndian) { padding += $0 }
    let saved = total
    padding.withUnsafeBytes { update($0.baseAddress!, count: $0.count) }
    total = saved
    state.write(to: digest)
  }
}
