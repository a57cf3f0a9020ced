import Foundation
import NostrEvent
import Testing

@testable import NIP44

/// The RFC test values of the building blocks: ChaCha20 (RFC 8439), HKDF (RFC 5869), HMAC (RFC 4231).
@Suite struct PrimitiveTests {
  static func bytes(_ hex: String) -> [UInt8] {
    guard let bytes = Hex.decode(hex) else { fatalError("bad hex in a test value") }
    return bytes
  }

  @Test func computesTheRFC8439BlockFunction() {
    let key = (0..<32).map(UInt8.init)
    let block = ChaCha20.block(key: key, nonce: Self.bytes("000000090000004a00000000"), counter: 1)
    #expect(
      Hex.encode(block)
        == "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
        + "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e")
  }

  @Test func encryptsTheRFC8439Sunscreen() {
    // RFC 8439 §2.4.2: 114 bytes, so the last block is partial.
    let key = (0..<32).map(UInt8.init)
    let nonce = Self.bytes("000000000000004a00000000")
    var text = Array(
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it."
        .utf8)
    text.withUnsafeMutableBytes { data in
      key.withUnsafeBytes { key in
        nonce.withUnsafeBytes { nonce in ChaCha20.apply(key: key, nonce: nonce, counter: 1, to: data) }
      }
    }
    #expect(
      Hex.encode(text)
        == "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
        + "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
        + "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
        + "5af90bbf74a35be6b40b8eedf2785e42874d")
  }

  @Test func restoresTheTextWhenAppliedTwice() {
    var generator = SplitMix64(seed: 8439)
    for count in [1, 63, 64, 65, 127, 128, 129, 1000] {
      let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let nonce = (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let original = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
      var data = original
      func apply() {
        data.withUnsafeMutableBytes { data in
          key.withUnsafeBytes { key in
            nonce.withUnsafeBytes { nonce in ChaCha20.apply(key: key, nonce: nonce, counter: 0, to: data) }
          }
        }
      }
      apply()
      #expect(data != original, "length \(count)")
      apply()
      #expect(data == original, "length \(count)")
    }
  }

  @Test func continuesTheKeystreamAcrossBlocks() {
    // Block 1 of a two-block run equals the block function at counter 1.
    let key = (0..<32).map(UInt8.init)
    let nonce = Self.bytes("000000090000004a00000000")
    var two = [UInt8](repeating: 0, count: 128)
    two.withUnsafeMutableBytes { data in
      key.withUnsafeBytes { key in
        nonce.withUnsafeBytes { nonce in ChaCha20.apply(key: key, nonce: nonce, counter: 0, to: data) }
      }
    }
    #expect(Array(two[64...]) == ChaCha20.block(key: key, nonce: nonce, counter: 1))
    #expect(Array(two[..<64]) == ChaCha20.block(key: key, nonce: nonce, counter: 0))
  }

  @Test(arguments: [255, 256, 257, 1000, 1024, 4096 + 63])
  func agreesWithTheBlockFunctionOnEveryPath(_ count: Int) {
    // Four blocks at a time, one at a time and the partial tail must give one keystream.
    let key = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let nonce = Self.bytes("0102030405060708090a0b0c")
    var stream = [UInt8](repeating: 0, count: count)
    stream.withUnsafeMutableBytes { data in
      key.withUnsafeBytes { key in
        nonce.withUnsafeBytes { nonce in ChaCha20.apply(key: key, nonce: nonce, counter: 5, to: data) }
      }
    }
    let blocks = (0..<((count + 63) / 64)).flatMap {
      ChaCha20.block(key: key, nonce: nonce, counter: UInt32(5 + $0))
    }
    #expect(stream == Array(blocks[..<count]))
  }

  @Test func derivesTheRFC5869CaseOne() {
    let ikm = [UInt8](repeating: 0x0b, count: 22)
    let salt = (0..<13).map(UInt8.init)
    let info = (0xf0...0xf9).map(UInt8.init)
    var prk = [UInt8](repeating: 0, count: 32)
    var okm = [UInt8](repeating: 0, count: 42)
    salt.withUnsafeBytes { salt in
      ikm.withUnsafeBytes { ikm in prk.withUnsafeMutableBytes { HKDF.extract(salt: salt, ikm: ikm, into: $0) }
      }
    }
    prk.withUnsafeBytes { prk in
      info.withUnsafeBytes { info in
        okm.withUnsafeMutableBytes { HKDF.expand(prk: prk, info: info, into: $0) }
      }
    }
    #expect(Hex.encode(prk) == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
    #expect(
      Hex.encode(okm)
        == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
  }

  @Test(arguments: [
    (
      "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "Hi There",
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    ),
    (
      "4a656665", "what do ya want for nothing?",
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    ),
  ])
  func computesTheRFC4231Tags(_ key: String, _ message: String, _ tag: String) {
    #expect(Hex.encode(HMACSHA256.tag(key: Self.bytes(key), message: Array(message.utf8))) == tag)
  }

  @Test func comparesTagsOverEveryByte() {
    let tag = (0..<32).map(UInt8.init)
    for index in 0..<32 {
      var other = tag
      other[index] ^= 0x01
      let equal = tag.withUnsafeBytes { a in other.withUnsafeBytes { b in HMACSHA256.constantTimeEqual(a, b) }
      }
      #expect(!equal, "byte \(index)")
    }
    let same = tag.withUnsafeBytes { a in tag.withUnsafeBytes { b in HMACSHA256.constantTimeEqual(a, b) } }
    #expect(same)
  }

  @Test func roundTripsBase64OfEveryShortLength() {
    var generator = SplitMix64(seed: 4648)
    for count in 0..<100 {
      let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let text = bytes.withUnsafeBytes { Base64.encode($0) }
      #expect(text == Data(bytes).base64EncodedString(), "length \(count)")
      let decoded = Array(text.utf8).withUnsafeBytes { Base64.decode($0) }
      #expect(decoded == bytes, "length \(count)")
    }
  }

  @Test(arguments: [
    "Zg=", "Zh==", "Zm9=", "Zg==Zg==", "Z===", "====", "Zm9v\n", "Zm 9", "Zm-v", "Zm_v", "ZgA",
  ])
  func refusesNonCanonicalBase64(_ text: String) {
    #expect(Array(text.utf8).withUnsafeBytes { Base64.decode($0) } == nil)
  }
}
