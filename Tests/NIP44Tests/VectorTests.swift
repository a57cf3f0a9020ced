import NostrEvent
import NostrJSON
import Testing

@testable import NIP44

/// Every case of the official NIP-44 vector file (`Fixtures/vectors/nip44/nip44.vectors.json`, `v2`).
@Suite struct VectorTests {
  @Test func pinsTheVectorFile() {
    #expect(
      Hex.encode(NostrSHA256.hash(NIP44Fixture.bytes))
        == "269ed0f69e4c192512cc779e78c555090cebc7c785b609e338a62afc3ce25040")
  }

  @Test func countsEveryGroupAsTheSpecDoes() throws {
    #expect(NIP44Fixture.cases("valid", "get_conversation_key").count == 35)
    #expect(
      NIP44Fixture.v2["valid"]?.objectValue?["get_message_keys"]?.objectValue?["keys"]?.arrayValue?.count
        == 32)
    #expect(NIP44Fixture.v2["valid"]?.objectValue?["calc_padded_len"]?.arrayValue?.count == 24)
    #expect(NIP44Fixture.cases("valid", "encrypt_decrypt").count == 10)
    #expect(NIP44Fixture.cases("valid", "encrypt_decrypt_long_msg").count == 3)
    #expect(NIP44Fixture.v2["invalid"]?.objectValue?["encrypt_msg_lengths"]?.arrayValue?.count == 4)
    #expect(NIP44Fixture.cases("invalid", "get_conversation_key").count == 8)
    #expect(NIP44Fixture.cases("invalid", "decrypt").count == 12)
  }

  @Test(arguments: NIP44Fixture.cases("valid", "get_conversation_key"))
  func derivesTheConversationKey(_ vector: JSONObject) throws {
    let secret = try SecretKey(hex: vector.string("sec1"))
    let key = try NIP44.ConversationKey(secretKey: secret, publicKey: vector.string("pub2"))
    #expect(key.hex == vector.string("conversation_key"))
  }

  static let messageKeys: (conversationKey: String, keys: [JSONObject]) = {
    guard let group = NIP44Fixture.v2["valid"]?.objectValue?["get_message_keys"]?.objectValue,
      let keys = group["keys"]?.arrayValue?.compactMap(\.objectValue)
    else { fatalError("no get_message_keys") }
    return (group.string("conversation_key"), keys)
  }()

  @Test(arguments: messageKeys.keys)
  func expandsTheMessageKeys(_ vector: JSONObject) throws {
    let conversationKey = try NIP44.ConversationKey(hex: Self.messageKeys.conversationKey)
    let nonce = try #require(Hex.decode(vector.string("nonce")))
    let (chachaKey, chachaNonce, hmacKey) = nonce.withUnsafeBytes { nonce in
      let keys = NIP44.MessageKeys(conversationKey: conversationKey, nonce: nonce)
      return (Hex.encode(keys.chachaKey), Hex.encode(keys.chachaNonce), Hex.encode(keys.hmacKey))
    }
    #expect(chachaKey == vector.string("chacha_key"))
    #expect(chachaNonce == vector.string("chacha_nonce"))
    #expect(hmacKey == vector.string("hmac_key"))
  }

  static let paddedLengths: [(Int, Int)] = {
    guard let pairs = NIP44Fixture.v2["valid"]?.objectValue?["calc_padded_len"]?.arrayValue else {
      fatalError("no calc_padded_len")
    }
    return pairs.map { pair in
      guard let values = pair.arrayValue, values.count == 2, let n = values[0].integerValue,
        let padded = values[1].integerValue
      else { fatalError("calc_padded_len pair malformed") }
      return (Int(n), Int(padded))
    }
  }()

  @Test(arguments: paddedLengths)
  func padsToTheVectorLength(_ n: Int, _ padded: Int) {
    #expect(NIP44.paddedLength(n) == padded)
  }

  @Test(arguments: NIP44Fixture.cases("valid", "encrypt_decrypt"))
  func encryptsAndDecryptsExactly(_ vector: JSONObject) throws {
    let secret1 = try SecretKey(hex: vector.string("sec1"))
    let secret2 = try SecretKey(hex: vector.string("sec2"))
    let forward = try NIP44.ConversationKey(secretKey: secret1, publicKey: secret2.publicKeyHex)
    let backward = try NIP44.ConversationKey(secretKey: secret2, publicKey: secret1.publicKeyHex)
    #expect(forward.hex == vector.string("conversation_key"))
    #expect(backward.hex == vector.string("conversation_key"))
    let nonce = try #require(Hex.decode(vector.string("nonce")))
    let payload = try NIP44.encrypt(vector.string("plaintext"), conversationKey: forward, nonce: nonce)
    #expect(payload == vector.string("payload"))
    let plaintext = try NIP44.decrypt(vector.string("payload"), conversationKey: backward)
    #expect(Array(plaintext.utf8) == Array(vector.string("plaintext").utf8))
  }

  @Test(arguments: NIP44Fixture.cases("valid", "encrypt_decrypt_long_msg"))
  func encryptsTheLongMessages(_ vector: JSONObject) throws {
    let key = try NIP44.ConversationKey(hex: vector.string("conversation_key"))
    let count = try #require(vector["repeat"]?.integerValue)
    let plaintext = String(repeating: vector.string("pattern"), count: Int(count))
    let nonce = try #require(Hex.decode(vector.string("nonce")))
    let payload = try NIP44.encrypt(plaintext, conversationKey: key, nonce: nonce)
    #expect(Hex.encode(NostrSHA256.hash(Array(payload.utf8))) == vector.string("payload_sha256"))
    let decrypted = try NIP44.decrypt(payload, conversationKey: key)
    #expect(Hex.encode(NostrSHA256.hash(Array(decrypted.utf8))) == vector.string("plaintext_sha256"))
  }

  static let refusedLengths: [Int] = {
    guard let lengths = NIP44Fixture.v2["invalid"]?.objectValue?["encrypt_msg_lengths"]?.arrayValue else {
      fatalError("no encrypt_msg_lengths")
    }
    return lengths.map { Int($0.integerValue ?? -1) }
  }()

  @Test(arguments: refusedLengths)
  func refusesThePlaintextLength(_ length: Int) throws {
    let key = try NIP44.ConversationKey(bytes: [UInt8](repeating: 7, count: 32))
    let error = try #require(throws: NIP44Error.self) {
      try NIP44.encrypt(String(repeating: "a", count: length), conversationKey: key)
    }
    #expect(error.code == .invalidPlaintextLength)
  }

  @Test(arguments: NIP44Fixture.cases("invalid", "get_conversation_key"))
  func refusesTheKeyPair(_ vector: JSONObject) throws {
    let note = vector.string("note")
    if note.hasPrefix("sec1") {
      #expect(throws: (any Error).self) { try SecretKey(hex: vector.string("sec1")) }
    } else {
      #expect(note.hasPrefix("pub2"))
      let secret = try SecretKey(hex: vector.string("sec1"))
      let error = try #require(throws: NIP44Error.self) {
        try NIP44.ConversationKey(secretKey: secret, publicKey: vector.string("pub2"))
      }
      #expect(error.code == .invalidPublicKey)
    }
  }

  /// The code each `invalid.decrypt` note names.
  static func code(forNote note: String) -> NIP44Error.Code? {
    if note.hasPrefix("unknown encryption version") { return .unsupportedVersion }
    if note.hasPrefix("invalid base64") { return .invalidBase64 }
    if note.hasPrefix("invalid MAC") { return .invalidMAC }
    if note.hasPrefix("invalid padding") { return .invalidPadding }
    if note.hasPrefix("invalid payload length") { return .invalidPayloadSize }
    return nil
  }

  @Test(arguments: NIP44Fixture.cases("invalid", "decrypt"))
  func refusesThePayload(_ vector: JSONObject) throws {
    let expected = try #require(Self.code(forNote: vector.string("note")))
    let key = try NIP44.ConversationKey(hex: vector.string("conversation_key"))
    let error = try #require(throws: NIP44Error.self) {
      try NIP44.decrypt(vector.string("payload"), conversationKey: key)
    }
    #expect(error.code == expected, "\(vector.string("note")): \(error)")
  }
}
