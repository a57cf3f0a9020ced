import NostrPushTestSupport
import Testing

@testable import NostrEvent

@Suite struct SHA256HasherTests {
  @Test func hashesPiecesAsOneMessage() {
    var generator = SplitMix64(seed: 44)
    for _ in 0..<200 {
      let count = Int.random(in: 0...300, using: &generator)
      let message = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
      var hasher = SHA256Hasher()
      var offset = 0
      while offset < count {
        let take = min(count - offset, Int.random(in: 0...130, using: &generator))
        hasher.update(Array(message[offset..<(offset + take)]))
        offset += take
      }
      #expect(hasher.finalize() == NostrSHA256.hash(message), "length \(count)")
    }
  }

  @Test func wipesItsStateAfterTheDigest() {
    var hasher = SHA256Hasher()
    hasher.update(Array("abc".utf8))
    _ = hasher.finalize()
    // A wiped hasher starts from zero words, not the SHA-256 initial values: its digest differs.
    var fresh = SHA256Hasher()
    #expect(hasher.finalize() != fresh.finalize())
  }
}
