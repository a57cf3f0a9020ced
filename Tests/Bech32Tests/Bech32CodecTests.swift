import Bech32
import Testing

@Suite struct Bech32CodecTests {
  /// The NIP-19 example npub (`3bf0c63f…459d`).
  static let npub = "npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6"
  static let alphabet = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l")

  @Test func rejectsEverySingleCharacterSubstitution() throws {
    let original = Array(Self.npub)
    let replacements = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    var rejected = 0
    for position in original.indices {
      for replacement in replacements where replacement != original[position] {
        var mutated = original
        mutated[position] = replacement
        let text = String(mutated)
        let error = #expect(throws: Bech32Error.self, "\(text)") { try NIP19Entity(decoding: text) }
        if position > 4 && Self.alphabet.contains(replacement) {
          #expect(error?.code == .invalidChecksum, "\(text)")
        }
        rejected += 1
      }
    }
    #expect(rejected == original.count * (replacements.count - 1))
  }

  @Test func acceptsAllUpperCase() throws {
    let decoded = try Bech32.decode(Self.npub.uppercased(), limit: .bip173)
    #expect(decoded.hrp == "npub")
    #expect(decoded == (try Bech32.decode(Self.npub, limit: .bip173)))
  }

  @Test(arguments: [
    "Npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6",
    "npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6W6",
    "NPUB180CVV07TJDRRGPA0J7J7TMNYL2YR6YR7L8J4S3EVF6U64TH6GKWSYJH6w6",
  ])
  func rejectsMixedCase(_ text: String) throws {
    let error = try #require(throws: Bech32Error.self) { try Bech32.decode(text, limit: .bip173) }
    #expect(error.code == .mixedCase)
  }

  @Test func appliesTheLengthCapOnlyWhenAsked() throws {
    let words = [UInt8](repeating: 7, count: 100)
    let long = try Bech32.encode(hrp: "long", words: words, limit: .nip19)
    #expect(long.count == 4 + 1 + 100 + 6)
    let error = try #require(throws: Bech32Error.self) { try Bech32.decode(long, limit: .bip173) }
    #expect(error.code == .invalidLength)
    #expect(try Bech32.decode(long, limit: .nip19).words == words)
    let encodeError = try #require(throws: Bech32Error.self) {
      try Bech32.encode(hrp: "long", words: words, limit: .bip173)
    }
    #expect(encodeError.code == .invalidLength)
  }

  @Test func reportsTheOffsetOfABadDataCharacter() throws {
    let error = try #require(throws: Bech32Error.self) {
      try Bech32.decode("abc1qqqqbqqqqqq", limit: .bip173)
    }
    #expect(error.code == .invalidCharacter)
    #expect(error.offset == 8)
  }

  @Test func regroupsBytesAndWordsBothWays() throws {
    let bytes: [UInt8] = [0x00, 0xFF, 0x10, 0x80, 0x7F]
    let words = Bech32.words(fromBytes: bytes)
    #expect(words == [0, 3, 31, 17, 1, 0, 3, 31])
    #expect(try Bech32.bytes(fromWords: words) == bytes)
  }

  @Test(arguments: [[UInt8]([1]), [0, 0, 0], [0, 0, 0, 0, 0, 0]])
  func refusesMoreThanFourLeftoverBits(_ words: [UInt8]) throws {
    let error = try #require(throws: Bech32Error.self) { try Bech32.bytes(fromWords: words) }
    #expect(error.code == .invalidPadding)
  }

  @Test func refusesNonZeroLeftoverBits() throws {
    // Two words are 10 bits: one byte and 2 leftover bits, which must be zero.
    #expect(try Bech32.bytes(fromWords: [31, 28]) == [0xFF])
    let error = try #require(throws: Bech32Error.self) { try Bech32.bytes(fromWords: [31, 29]) }
    #expect(error.code == .invalidPadding)
  }

  @Test func reportsBadPaddingInsideAValidString() throws {
    var words = Bech32.words(fromBytes: [UInt8](repeating: 0xAB, count: 32))
    words[words.count - 1] |= 1
    let text = try Bech32.encode(hrp: "npub", words: words, limit: .nip19)
    let error = try #require(throws: Bech32Error.self) { try NIP19Entity(decoding: text) }
    #expect(error.code == .invalidPadding)
  }

  @Test(arguments: ["", "a b", "é"])
  func refusesBadPrefixesWhenEncoding(_ hrp: String) throws {
    let error = try #require(throws: Bech32Error.self) {
      try Bech32.encode(hrp: hrp, words: [], limit: .bip173)
    }
    #expect(error.code == .invalidCharacter)
    #expect(error.field == "hrp")
  }

  @Test func writesUpperCasePrefixesInLowerCase() throws {
    #expect(try Bech32.encode(hrp: "A", words: [], limit: .bip173) == "a12uel5l")
    let error = try #require(throws: Bech32Error.self) {
      try Bech32.encode(hrp: "Ab", words: [], limit: .bip173)
    }
    #expect(error.code == .mixedCase)
  }

  @Test func refusesWordsAbove31() throws {
    let error = try #require(throws: Bech32Error.self) {
      try Bech32.encode(hrp: "a", words: [1, 32], limit: .bip173)
    }
    #expect(error.code == .invalidCharacter)
    #expect(error.offset == 1)
  }

  @Test func comparesErrorsByCodeAndFieldNotByMessage() {
    #expect(
      Bech32Error(code: .invalidTLV, field: "relay", message: "one")
        == Bech32Error(code: .invalidTLV, field: "relay", message: "two"))
    #expect(
      Bech32Error(code: .invalidTLV, field: "relay", message: "x")
        != Bech32Error(code: .invalidTLV, field: "author", message: "x"))
    #expect(Bech32Error(code: .invalidTLV, message: "x") != Bech32Error(code: .invalidLength, message: "x"))
    let names: [Bech32Error.Code: String] = [
      .invalidCharacter: "invalid_character", .invalidChecksum: "invalid_checksum",
      .invalidLength: "invalid_length", .invalidPadding: "invalid_padding", .invalidTLV: "invalid_tlv",
      .mixedCase: "mixed_case", .unknownPrefix: "unknown_prefix",
    ]
    for (code, name) in names { #expect(code.rawValue == name) }
  }
}
