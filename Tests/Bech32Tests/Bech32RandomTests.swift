import Bech32
import NostrPushTestSupport
import Testing

/// Seeded random payloads and strings through the codec, against a plain BIP-173 checksum.
@Suite struct Bech32RandomTests {
  static let cases = 3_000
  static let alphabet = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
  /// Prefix characters: lower-case letters, digits (the separator `1` included) and symbols.
  static let prefixCharacters = Array("abcdefghijklmnopqrstuvwxyz0123456789!#$%&*+-./:;<=>?@[]^_{|}~".utf8)

  /// The BIP-173 checksum condition, written out from the BIP's definition: the polymod of the
  /// expanded prefix followed by the data words (checksum included) is 1.
  static func referenceChecksumHolds(prefix: [UInt8], words: [UInt8]) -> Bool {
    let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
    var checksum: UInt32 = 1
    for value in prefix.map({ $0 >> 5 }) + [0] + prefix.map({ $0 & 31 }) + words {
      let top = checksum >> 25
      checksum = ((checksum & 0x1ff_ffff) << 5) ^ UInt32(value)
      for bit in 0..<5 where (top >> UInt32(bit)) & 1 == 1 { checksum ^= generator[bit] }
    }
    return checksum == 1
  }

  static func randomPrefix(_ random: inout SplitMix64) -> [UInt8] {
    (0..<Int.random(in: 1...8, using: &random)).map { _ in prefixCharacters.randomElement(using: &random)! }
  }

  @Test func roundTripsRandomPayloads() throws {
    var random = SplitMix64(seed: 0x4243_0001)
    for _ in 0..<Self.cases {
      let prefix = String(decoding: Self.randomPrefix(&random), as: UTF8.self)
      let bytes = (0..<Int.random(in: 0...300, using: &random)).map { _ in
        UInt8.random(in: 0...255, using: &random)
      }
      let text = try Bech32.encode(hrp: prefix, bytes: bytes, limit: .nip19)
      let decoded = try Bech32.decode(text, limit: .nip19)
      #expect(decoded.hrp == prefix, "\(text)")
      #expect(try decoded.bytes() == bytes, "\(text)")
      #expect(try Bech32.decode(text.uppercased(), limit: .nip19) == decoded, "\(text)")
    }
  }

  @Test func acceptsExactlyTheStringsWhoseChecksumHolds() throws {
    var random = SplitMix64(seed: 0x4243_0002)
    var held = 0
    for index in 0..<Self.cases {
      let prefix = Self.randomPrefix(&random)
      var words: [UInt8]
      if index % 3 == 0 {
        words = (0..<Int.random(in: 6...60, using: &random)).map { _ in
          UInt8.random(in: 0...31, using: &random)
        }
      } else {
        let payload = (0..<Int.random(in: 0...40, using: &random)).map { _ in
          UInt8.random(in: 0...31, using: &random)
        }
        let valid = try Bech32.encode(
          hrp: String(decoding: prefix, as: UTF8.self), words: payload, limit: .nip19)
        words = valid.utf8.suffix(payload.count + 6).map { UInt8(Self.alphabet.firstIndex(of: $0)!) }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
          words[Int.random(in: 0..<words.count, using: &random)] = UInt8.random(in: 0...31, using: &random)
        }
      }
      let text = String(
        decoding: prefix + [UInt8(ascii: "1")] + words.map { Self.alphabet[Int($0)] }, as: UTF8.self)
      let expected = Self.referenceChecksumHolds(prefix: prefix, words: words)
      let result = Result { () throws(Bech32Error) in try Bech32.decode(text, limit: .nip19) }
      switch result {
      case .success(let decoded):
        #expect(expected, "\(text)")
        #expect(decoded.words == Array(words.dropLast(6)), "\(text)")
      case .failure(let error):
        #expect(!expected, "\(text)")
        #expect(error.code == .invalidChecksum, "\(text)")
      }
      if expected { held += 1 }
    }
    #expect(held > Self.cases / 10 && held < Self.cases / 2)
  }
}
