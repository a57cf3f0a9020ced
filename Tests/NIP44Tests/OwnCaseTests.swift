import Foundation
import NostrEvent
import NostrPushTestSupport
import Testing

@testable import NIP44

/// The cases the official vectors miss, that this package checks on its own.
@Suite struct OwnCaseTests {
  static let key: NIP44.ConversationKey = {
    do { return try NIP44.ConversationKey(hex: String(repeating: "5a", count: 32)) } catch {
      fatalError("\(error)")
    }
  }()
  static let nonce = [UInt8](repeating: 0x11, count: 32)

  /// A payload whose MAC is valid for `block` (length prefix, text, padding — written as given),
  /// with the version byte `version`; `macOverCiphertextOnly` leaves the nonce out of the MAC.
  static func forge(block: [UInt8], version: UInt8 = 2, macOverCiphertextOnly: Bool = false) -> String {
    var data = [version] + nonce + block + [UInt8](repeating: 0, count: 32)
    data.withUnsafeMutableBytes { data in
      let nonce = UnsafeRawBufferPointer(rebasing: data[1..<33])
      let ciphertext = UnsafeMutableRawBufferPointer(rebasing: data[33..<(data.count - 32)])
      let keys = NIP44.MessageKeys(conversationKey: key, nonce: nonce)
      ChaCha20.apply(key: keys.chachaKey, nonce: keys.chachaNonce, counter: 0, to: ciphertext)
      var mac = HMACSHA256(key: keys.hmacKey)
      if !macOverCiphertextOnly { mac.update(nonce) }
      mac.update(UnsafeRawBufferPointer(ciphertext))
      mac.finalize(into: UnsafeMutableRawBufferPointer(rebasing: data[(data.count - 32)...]))
    }
    return data.withUnsafeBytes { Base64.encode($0) }
  }

  /// The padded block of `text` as an honest sender writes it.
  static func block(_ text: [UInt8]) -> [UInt8] {
    [UInt8(text.count >> 8), UInt8(text.count & 0xFF)] + text
      + [UInt8](repeating: 0, count: NIP44.paddedLength(text.count) - text.count)
  }

  static func decryptCode(_ payload: String) throws -> NIP44Error.Code {
    let error = try #require(throws: NIP44Error.self) { try NIP44.decrypt(payload, conversationKey: key) }
    return error.code
  }

  @Test func acceptsAForgedHonestPayload() throws {
    // The helper itself: an honest block decrypts, so the refusals below are about the change.
    #expect(
      try NIP44.decrypt(Self.forge(block: Self.block(Array("hello".utf8))), conversationKey: Self.key)
        == "hello")
  }

  @Test(arguments: [
    "0000000000000000000000000000000000000000000000000000000000000000",
    "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
    "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364142",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
  ])
  func refusesTheSecretKeyOutsideTheGroup(_ hex: String) {
    // SecretKey holds only [1, n−1]; the CLI reports these as invalid_secret_key (NostrPushCLITests).
    #expect(throws: (any Error).self) { try SecretKey(hex: hex) }
  }

  @Test(arguments: [1, 4, 29])
  func refusesANonZeroPaddingByte(_ position: Int) throws {
    var block = Self.block(Array("abc".utf8))
    block[2 + 3 + position - 1] = 0x01
    #expect(try Self.decryptCode(Self.forge(block: block)) == .invalidPadding)
  }

  @Test(arguments: [0, 33, 65_535])
  func refusesALengthPrefixThatDoesNotFit(_ prefix: Int) throws {
    var block = Self.block(Array("abc".utf8))
    block[0] = UInt8(prefix >> 8)
    block[1] = UInt8(prefix & 0xFF)
    #expect(try Self.decryptCode(Self.forge(block: block)) == .invalidPadding)
  }

  @Test(arguments: ["80", "c0af", "eda080", "f4908080", "6162e282"])
  func refusesPlaintextThatIsNotUTF8(_ hex: String) throws {
    let bytes = try #require(Hex.decode(hex))
    #expect(try Self.decryptCode(Self.forge(block: Self.block(bytes))) == .invalidUTF8)
  }

  @Test func keepsUPlus0000() throws {
    let text = "a\u{0}b"
    let payload = try NIP44.encrypt(text, conversationKey: Self.key)
    #expect(Array(try NIP44.decrypt(payload, conversationKey: Self.key).utf8) == Array(text.utf8))
  }

  /// A valid payload with one `=` (a 40-byte text pads to 64: 131 bytes, 176 characters).
  static let padded: String = {
    do {
      return try NIP44.encrypt(String(repeating: "p", count: 40), conversationKey: key, nonce: nonce)
    } catch { fatalError("\(error)") }
  }()

  static func replacing(_ text: String, at offset: Int, with replacement: String) -> String {
    var characters = Array(text)
    characters[offset] = Character(replacement)
    return String(characters)
  }

  static let base64Variants: [(String, String)] = {
    let text = padded
    let lastSymbol = text[text.index(text.endIndex, offsetBy: -2)]
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    let value = alphabet.firstIndex(of: lastSymbol)!
    let withUnusedBits = String(text.dropLast(2)) + String(alphabet[value | 1]) + "="
    return [
      ("without its =", String(text.dropLast())),
      ("unused bits set", withUnusedBits),
      ("a space inside", replacing(text, at: 50, with: " ")),
      ("a LF inside", replacing(text, at: 50, with: "\n")),
      ("= inside", replacing(text, at: 50, with: "=")),
      ("- inside", replacing(text, at: 50, with: "-")),
      ("_ inside", replacing(text, at: 50, with: "_")),
      ("a CRLF end", text + "\r\n"),
      ("a LF end", text + "\n"),
    ]
  }()

  @Test func startsFromAPaddedValidPayload() throws {
    #expect(Self.padded.hasSuffix("=") && !Self.padded.hasSuffix("=="))
    #expect(try NIP44.decrypt(Self.padded, conversationKey: Self.key) == String(repeating: "p", count: 40))
  }

  @Test(arguments: base64Variants)
  func refusesBase64ThatIsNotCanonical(_ name: String, _ payload: String) throws {
    #expect(payload != Self.padded)
    #expect(try Self.decryptCode(payload) == .invalidBase64, "\(name)")
  }

  @Test func refusesA132CharacterPayloadOf97Bytes() throws {
    let payload = [UInt8](repeating: 2, count: 97).withUnsafeBytes { Base64.encode($0) }
    #expect(payload.utf8.count == 132)
    #expect(try Self.decryptCode(payload) == .invalidDataSize)
  }

  @Test(arguments: [131, 87_476, 87_473])
  func refusesAPayloadOfTheWrongSize(_ count: Int) throws {
    #expect(try Self.decryptCode(String(repeating: "A", count: count)) == .invalidPayloadSize)
  }

  @Test func reportsHashFirstWhateverFollows() throws {
    #expect(try Self.decryptCode("#") == .unsupportedVersion)
    #expect(try Self.decryptCode("#" + String(repeating: "A", count: 90_000)) == .unsupportedVersion)
    #expect(try Self.decryptCode("") == .invalidPayloadSize)
  }

  @Test(arguments: [UInt8(0x00), 0x01, 0x03, 0xFF])
  func refusesAnotherVersionWithAValidMAC(_ version: UInt8) throws {
    let payload = Self.forge(block: Self.block(Array("abc".utf8)), version: version)
    #expect(try Self.decryptCode(payload) == .unsupportedVersion)
  }

  @Test func refusesAMACOverTheCiphertextAlone() throws {
    let payload = Self.forge(block: Self.block(Array("abc".utf8)), macOverCiphertextOnly: true)
    #expect(try Self.decryptCode(payload) == .invalidMAC)
  }

  @Test(arguments: [
    ("nonce", 1), ("nonce", 32), ("ciphertext", 33), ("ciphertext", 97), ("mac", 99), ("mac", 130),
  ])
  func refusesAFlippedBit(_ part: String, _ offset: Int) throws {
    var data = try #require(Data(base64Encoded: Self.padded)).map { $0 }
    #expect(data.count == 131)
    data[offset] ^= 0x10
    let payload = data.withUnsafeBytes { Base64.encode($0) }
    #expect(try Self.decryptCode(payload) == .invalidMAC, "\(part)")
  }

  @Test func refusesTheWrongKey() throws {
    let other = try NIP44.ConversationKey(hex: String(repeating: "5b", count: 32))
    let error = try #require(throws: NIP44Error.self) {
      try NIP44.decrypt(Self.padded, conversationKey: other)
    }
    #expect(error.code == .invalidMAC)
  }

  @Test(arguments: [31, 33, 0])
  func refusesANonceOfTheWrongLength(_ count: Int) throws {
    let error = try #require(throws: NIP44Error.self) {
      try NIP44.encrypt("a", conversationKey: Self.key, nonce: [UInt8](repeating: 1, count: count))
    }
    #expect(error.code == .invalidNonce)
  }

  @Test func refusesAConversationKeyOfTheWrongLength() throws {
    let short = try #require(throws: NIP44Error.self) {
      try NIP44.ConversationKey(bytes: [UInt8](repeating: 1, count: 31))
    }
    #expect(short.code == .invalidConversationKey)
    let hex = try #require(throws: NIP44Error.self) {
      try NIP44.ConversationKey(hex: String(repeating: "ab", count: 31))
    }
    #expect(hex.code == .invalidConversationKey)
    let notHex = try #require(throws: NIP44Error.self) {
      try NIP44.ConversationKey(hex: String(repeating: "zz", count: 32))
    }
    #expect(notHex.code == .invalidConversationKey)
  }

  @Test func refusesAPublicKeyThatIsNotHex() throws {
    let secret = try SecretKey(hex: String(repeating: "01", count: 32))
    for text in [
      "", String(repeating: "a", count: 63), String(repeating: "g", count: 64),
      String(repeating: "a", count: 66),
    ] {
      let error = try #require(throws: NIP44Error.self) {
        try NIP44.ConversationKey(secretKey: secret, publicKey: text)
      }
      #expect(error.code == .invalidPublicKey)
    }
  }

  @Test func agreesFromBothSidesWithEitherCase() throws {
    let alice = SecretKey.generate()
    let bob = SecretKey.generate()
    let forward = try NIP44.ConversationKey(secretKey: alice, publicKey: bob.publicKeyHex.uppercased())
    let backward = try NIP44.ConversationKey(secretKey: bob, publicKey: alice.publicKeyHex)
    #expect(forward.hex == backward.hex)
    #expect(try NIP44.ConversationKey(hex: forward.hex.uppercased()).hex == forward.hex)
  }

  /// A text of exactly `count` UTF-8 bytes mixing ASCII, U+0000, é, emoji, ZWJ and U+2028.
  static func randomText(bytes count: Int, using generator: inout SplitMix64) -> String {
    let pieces = ["a", "\u{0}", "é", "\u{1F984}", "\u{200D}", "\u{2028}", "👩‍👩‍👧"]
    var text = ""
    var remaining = count
    while remaining > 0 {
      let piece = pieces.randomElement(using: &generator)!
      let size = piece.utf8.count
      if size <= remaining {
        text += piece
        remaining -= size
      } else {
        text += String(repeating: "z", count: remaining)
        remaining = 0
      }
    }
    return text
  }

  /// The padding boundaries, then random lengths: mostly short (every padding step up to 2 KiB),
  /// one in eight anywhere up to the maximum. (A thousand lengths up to 64 KiB took 28 s of one
  /// core in a debug build and starved the parallel suite; these cover the same steps.)
  @Test func roundTripsTwoHundredRandomTexts() throws {
    var generator = SplitMix64(seed: 44)
    for round in 0..<200 {
      let count =
        round < 10
        ? [1, 2, 31, 32, 33, 255, 256, 257, 65_534, 65_535][round]
        : Int.random(in: 1...(round % 8 == 0 ? 65_535 : 2_048), using: &generator)
      let text = randomTextChecked(count, &generator)
      let payload = try NIP44.encrypt(text, conversationKey: Self.key)
      let decrypted = try NIP44.decrypt(payload, conversationKey: Self.key)
      #expect(Array(decrypted.utf8) == Array(text.utf8), "length \(count)")
      #expect(payload.utf8.count == (1 + 32 + 2 + NIP44.paddedLength(count) + 32 + 2) / 3 * 4)
    }
  }

  private func randomTextChecked(_ count: Int, _ generator: inout SplitMix64) -> String {
    let text = Self.randomText(bytes: count, using: &generator)
    precondition(text.utf8.count == count)
    return text
  }

  @Test func encryptsOneTextDifferentlyEachTime() throws {
    let first = try NIP44.encrypt("same text", conversationKey: Self.key)
    let second = try NIP44.encrypt("same text", conversationKey: Self.key)
    #expect(first != second)
    #expect(
      try NIP44.decrypt(first, conversationKey: Self.key) == NIP44.decrypt(second, conversationKey: Self.key))
  }

  @Test func comparesErrorsByCodeOnly() {
    #expect(NIP44Error(code: .invalidMAC, message: "one") == NIP44Error(code: .invalidMAC, message: "two"))
    #expect(
      NIP44Error(code: .invalidMAC, message: "one") != NIP44Error(code: .invalidPadding, message: "one"))
    #expect(NIP44Error.Code.invalidMAC.rawValue == "invalid_mac")
  }
}
