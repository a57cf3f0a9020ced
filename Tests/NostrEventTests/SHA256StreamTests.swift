import Testing

@testable import NostrEvent

/// The streaming SHA-256 (for a roster's serialization hashed window by window) gives the
/// one-shot digest, wherever the pieces are cut.
@Suite struct SHA256StreamTests {
  @Test(arguments: [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 70_000])
  func matchesTheOneShotDigest(length: Int) {
    let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    let expected = NostrSHA256.hash(bytes)
    for piece in [1, 7, 64, 100, 4096] {
      var stream = SHA256Stream()
      var offset = 0
      bytes.withUnsafeBytes { buffer in
        while offset < length {
          let count = min(piece, length - offset)
          stream.update(buffer.baseAddress! + offset, count: count)
          offset += count
        }
      }
      var digest = [UInt8](repeating: 0, count: 32)
      digest.withUnsafeMutableBytes { stream.finish(into: $0) }
      #expect(digest == expected, "length \(length), pieces of \(piece)")
    }
  }
}
