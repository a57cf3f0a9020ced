import Foundation
import NostrJSON
import Testing

/// Runs the built `nostr-push nip44` (`Docs/CommandLine.md`).
@Suite struct Nip44CommandTests {
  // The first `encrypt_decrypt` vector of nip44.vectors.json (test keys 1 and 2).
  static let secret1 = "0000000000000000000000000000000000000000000000000000000000000001"
  static let publicKey2 = "c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"
  static let conversationKey = "c41c775356fd92eadc63ff5a0dc1da211b268cbea22316767095b2871ea1412d"
  static let nonce = "0000000000000000000000000000000000000000000000000000000000000001"
  static let payload =
    "AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABee0G5VSK0/9YypIObAtDKfYEAjD35uVkHyB0F4DwrcNaCXlCWZKaArsGrY6M9wnuTMxWfp1RTN9Xga8no+kF5Vsb"
  /// A public key that is not the x of a curve point (from the vectors: "no sqrt").
  static let offCurve = "1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef"

  /// A temporary key file holding `text` (a test key).
  static func keyFile(_ text: String) throws -> String {
    let path = NSTemporaryDirectory() + "nip44-test-" + UUID().uuidString + ".key"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// The one output line as a JSON object.
  static func object(_ run: NostrPushBinary.Run) throws -> JSONObject {
    #expect(run.stdout.hasSuffix("\n") && run.stdout.filter { $0 == "\n" }.count == 1)
    return try #require(try JSONReader().read(run.stdout).objectValue)
  }

  /// The error code of a refused run, after checking exit 1 and the output's shape.
  static func errorCode(_ arguments: [String], input: [UInt8] = []) async throws -> String? {
    let run = try await NostrPushBinary.run(["nip44"] + arguments, input: input)
    #expect(run.status == 1, "\(arguments): \(run.stdout) \(run.stderr)")
    let object = try object(run)
    #expect(object.keys == ["error", "message"])
    #expect(object["message"]?.stringValue?.isEmpty == false)
    return object["error"]?.stringValue
  }

  @Test func printsTheConversationKey() async throws {
    let file = try Self.keyFile("  \(Self.secret1.uppercased())\n")
    defer { try? FileManager.default.removeItem(atPath: file) }
    let run = try await NostrPushBinary.run([
      "nip44", "conversation-key", "--secret-key-file", file, "--pubkey", Self.publicKey2.uppercased(),
    ])
    #expect(run.status == 0)
    #expect(run.stdout == "{\"conversation_key\":\"\(Self.conversationKey)\"}\n")
  }

  @Test func readsAnNsecKeyFile() async throws {
    // nsec of secret key 1 (NIP-19 of 00…01).
    let file = try Self.keyFile("nsec1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqsmhltgl\n")
    defer { try? FileManager.default.removeItem(atPath: file) }
    let run = try await NostrPushBinary.run([
      "nip44", "conversation-key", "--secret-key-file", file, "--pubkey", Self.publicKey2,
    ])
    #expect(run.status == 0, "\(run.stdout)")
    #expect(try Self.object(run)["conversation_key"]?.stringValue == Self.conversationKey)
  }

  @Test func encryptsWithTheGivenNonceExactly() async throws {
    let file = try Self.keyFile(Self.secret1)
    defer { try? FileManager.default.removeItem(atPath: file) }
    for keyArguments in [
      ["--conversation-key", Self.conversationKey], ["--secret-key-file", file, "--pubkey", Self.publicKey2],
    ] {
      let run = try await NostrPushBinary.run(
        ["nip44", "encrypt"] + keyArguments + ["--nonce", Self.nonce], input: Array("a".utf8))
      #expect(run.status == 0)
      #expect(run.stdout == "{\"payload\":\"\(Self.payload)\"}\n")
    }
  }

  @Test func decryptsWithEitherKeyForm() async throws {
    // The other side: secret 2 and the public key of secret 1.
    let file = try Self.keyFile("0000000000000000000000000000000000000000000000000000000000000002")
    defer { try? FileManager.default.removeItem(atPath: file) }
    let publicKey1 = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
    for keyArguments in [
      ["--conversation-key", Self.conversationKey], ["--secret-key-file", file, "--pubkey", publicKey1],
    ] {
      let run = try await NostrPushBinary.run(
        ["nip44", "decrypt"] + keyArguments, input: Array((Self.payload + "\n").utf8))
      #expect(run.status == 0)
      #expect(run.stdout == "{\"plaintext\":\"a\"}\n")
    }
  }

  @Test func roundTripsStandardInputsExactBytes() async throws {
    let text = "line one\n\"quoted\"\t\u{0}é 🦄\u{2028}\n\n"
    let encrypted = try await NostrPushBinary.run(
      ["nip44", "encrypt", "--conversation-key", Self.conversationKey], input: Array(text.utf8))
    #expect(encrypted.status == 0)
    let payload = try #require(try Self.object(encrypted)["payload"]?.stringValue)
    #expect(payload != Self.payload)
    let decrypted = try await NostrPushBinary.run(
      ["nip44", "decrypt", "--conversation-key", Self.conversationKey], input: Array(payload.utf8))
    #expect(decrypted.status == 0)
    #expect(try Self.object(decrypted)["plaintext"]?.stringValue.map { Array($0.utf8) } == Array(text.utf8))
  }

  @Test func drawsAFreshNonceEachRun() async throws {
    var payloads: Set<String> = []
    for _ in 0..<2 {
      let run = try await NostrPushBinary.run(
        ["nip44", "encrypt", "--conversation-key", Self.conversationKey], input: [0x61])
      payloads.insert(try #require(try Self.object(run)["payload"]?.stringValue))
    }
    #expect(payloads.count == 2)
  }

  @Test(arguments: [
    "0000000000000000000000000000000000000000000000000000000000000000",
    "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
    "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364142",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "not a key", "",
  ])
  func refusesASecretKeyOutsideTheGroup(_ text: String) async throws {
    let file = try Self.keyFile(text)
    defer { try? FileManager.default.removeItem(atPath: file) }
    #expect(
      try await Self.errorCode(["conversation-key", "--secret-key-file", file, "--pubkey", Self.publicKey2])
        == "invalid_secret_key")
  }

  @Test func refusesAKeyFileItCannotRead() async throws {
    #expect(
      try await Self.errorCode([
        "conversation-key", "--secret-key-file", "/nonexistent/nip44.key", "--pubkey", Self.publicKey2,
      ])
        == "invalid_secret_key")
    #expect(
      try await Self.errorCode(["conversation-key", "--secret-key-file", "", "--pubkey", Self.publicKey2])
        == "invalid_secret_key")
  }

  @Test(arguments: [
    offCurve, String(repeating: "f", count: 64), "abc", "", String(repeating: "g", count: 64),
  ])
  func refusesAPublicKey(_ publicKey: String) async throws {
    let file = try Self.keyFile(Self.secret1)
    defer { try? FileManager.default.removeItem(atPath: file) }
    #expect(
      try await Self.errorCode(["encrypt", "--secret-key-file", file, "--pubkey", publicKey], input: [0x61])
        == "invalid_public_key")
  }

  @Test(arguments: ["", "ab", String(repeating: "a", count: 62), String(repeating: "x", count: 64)])
  func refusesAConversationKey(_ hex: String) async throws {
    #expect(
      try await Self.errorCode(["decrypt", "--conversation-key", hex], input: Array(Self.payload.utf8))
        == "invalid_conversation_key")
  }

  @Test(arguments: [
    "", String(repeating: "0", count: 62), String(repeating: "0", count: 66),
    String(repeating: "z", count: 64),
  ])
  func refusesANonce(_ hex: String) async throws {
    #expect(
      try await Self.errorCode(
        ["encrypt", "--conversation-key", Self.conversationKey, "--nonce", hex], input: [0x61])
        == "invalid_nonce")
  }

  @Test func refusesPlaintextOfTheWrongLengthBeforeUTF8() async throws {
    let arguments = ["encrypt", "--conversation-key", Self.conversationKey]
    #expect(try await Self.errorCode(arguments, input: []) == "invalid_plaintext_length")
    #expect(
      try await Self.errorCode(arguments, input: [UInt8](repeating: 0x61, count: 65_536))
        == "invalid_plaintext_length")
    #expect(
      try await Self.errorCode(arguments, input: [UInt8](repeating: 0xFF, count: 70_000))
        == "invalid_plaintext_length")
    #expect(try await Self.errorCode(arguments, input: [0x61, 0xFF]) == "invalid_utf8")
    let longest = try await NostrPushBinary.run(
      ["nip44"] + arguments, input: [UInt8](repeating: 0x61, count: 65_535))
    #expect(longest.status == 0)
  }

  @Test func checksTheDecryptInputAsItIs() async throws {
    let arguments = ["decrypt", "--conversation-key", Self.conversationKey]
    #expect(
      try await Self.errorCode(arguments, input: Array(("#" + String(repeating: "A", count: 100_000)).utf8))
        == "unsupported_version")
    #expect(
      try await Self.errorCode(arguments, input: Array(String(repeating: "A", count: 87_474).utf8))
        == "invalid_payload_size")
    #expect(
      try await Self.errorCode(arguments, input: Array(String(repeating: "A", count: 200_000).utf8))
        == "invalid_payload_size")
    #expect(try await Self.errorCode(arguments, input: []) == "invalid_payload_size")
    #expect(
      try await Self.errorCode(arguments, input: Array((Self.payload + "\r\n").utf8)) == "invalid_base64")
    #expect(
      try await Self.errorCode(arguments, input: Array((Self.payload + "\n\n").utf8)) == "invalid_base64")
    var nonUTF8 = Array(Self.payload.utf8)
    nonUTF8[40] = 0xFF
    #expect(try await Self.errorCode(arguments, input: nonUTF8) == "invalid_base64")
    var flipped = Array(Self.payload.utf8)
    flipped[60] = flipped[60] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    #expect(try await Self.errorCode(arguments, input: flipped) == "invalid_mac")
  }

  @Test func checksTheKeyFileFirstThenTheKeyThenTheNonceThenStandardInput() async throws {
    let bad = try Self.keyFile("not a key")
    let good = try Self.keyFile(Self.secret1)
    defer {
      try? FileManager.default.removeItem(atPath: bad)
      try? FileManager.default.removeItem(atPath: good)
    }
    #expect(
      try await Self.errorCode(["encrypt", "--secret-key-file", bad, "--pubkey", "zz", "--nonce", "zz"])
        == "invalid_secret_key")
    #expect(
      try await Self.errorCode([
        "encrypt", "--secret-key-file", good, "--pubkey", Self.offCurve, "--nonce", "zz",
      ])
        == "invalid_public_key")
    #expect(
      try await Self.errorCode(["encrypt", "--conversation-key", "zz", "--nonce", "zz"])
        == "invalid_conversation_key")
    #expect(
      try await Self.errorCode(
        ["encrypt", "--conversation-key", Self.conversationKey, "--nonce", "zz"], input: [])
        == "invalid_nonce")
  }

  @Test(arguments: [
    [], ["unknown"], ["encrypt", "--conversation-key", conversationKey, "--bogus", "1"],
    ["encrypt", "--conversation-key", conversationKey, "--secret-key-file", "f", "--pubkey", publicKey2],
    ["encrypt", "--conversation-key", conversationKey, "--pubkey", publicKey2],
    ["decrypt"], ["encrypt", "--secret-key-file", "f"], ["decrypt", "--pubkey", publicKey2],
    ["conversation-key", "--conversation-key", conversationKey],
    ["conversation-key", "--secret-key-file", "f", "--pubkey", publicKey2, "--nonce", nonce],
    ["decrypt", "--conversation-key", conversationKey, "--nonce", nonce],
    ["decrypt", "--conversation-key", conversationKey, "extra"],
    ["encrypt", "--conversation-key"],
  ])
  func refusesTheUsage(_ arguments: [String]) async throws {
    let run = try await NostrPushBinary.run(["nip44"] + arguments, input: Array(Self.payload.utf8))
    #expect(run.status == 2, "\(arguments)")
    #expect(run.stdout.isEmpty)
    #expect(run.stderr.contains("usage: nostr-push nip44"))
  }
}
