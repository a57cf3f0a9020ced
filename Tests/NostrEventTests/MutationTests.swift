import NostrJSON
import Testing

@testable import NostrEvent

/// A valid event changed in one place, and what verification must then say.
struct Mutation: Sendable, CustomTestStringConvertible {
  var name: String
  var apply: @Sendable (inout JSONObject) -> Void
  var expected: Result<EventVerification, EventError>

  var testDescription: String { name }
}

@Suite struct MutationTests {
  static let key = try! SecretKey(hex: "41ad4a9d72aaf80a611fddc7e48ea51d96c0a983654405989a4d8e958e612690")

  static let original: Event = try! UnsignedEvent(
    pubkey: key.publicKeyHex, createdAt: 1_700_000_000, kind: 1,
    tags: [["e", String(repeating: "ab", count: 32)], ["t", "nostr"]],
    content: "hello \"world\"\nhttps://example.com/ 🎉"
  ).signed(with: key)

  static func flipBit(_ text: String, at index: Int = 0) -> String {
    var bytes = Array(text.utf8)
    bytes[index] ^= 0x01
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Flips the lowest bit of one hex digit while keeping it lowercase hex (0↔1, a↔b …).
  static func flipHexBit(_ text: String) -> String {
    var bytes = Array(text.utf8)
    let swapped: [UInt8: UInt8] = [
      0x30: 0x31, 0x31: 0x30, 0x32: 0x33, 0x33: 0x32, 0x34: 0x35, 0x35: 0x34, 0x36: 0x37, 0x37: 0x36,
      0x38: 0x39, 0x39: 0x38, 0x61: 0x62, 0x62: 0x61, 0x63: 0x64, 0x64: 0x63, 0x65: 0x66, 0x66: 0x65,
    ]
    bytes[5] = swapped[bytes[5]]!
    return String(decoding: bytes, as: UTF8.self)
  }

  static let mutations: [Mutation] = [
    Mutation(
      name: "content bit", apply: { $0["content"] = .string(flipBit(original.content)) },
      expected: .success(.idMismatch)),
    Mutation(
      name: "tag bit",
      apply: {
        $0["tags"] = .array([
          .array([.string("e"), .string(flipHexBit(original.tags[0][1]))]),
          .array([.string("t"), .string("nostr")]),
        ])
      },
      expected: .success(.idMismatch)),
    Mutation(
      name: "created_at bit", apply: { $0["created_at"] = .integer(original.createdAt ^ 1) },
      expected: .success(.idMismatch)),
    Mutation(
      name: "kind bit", apply: { $0["kind"] = .integer(Int64(original.kind ^ 1)) },
      expected: .success(.idMismatch)),
    Mutation(
      name: "pubkey bit", apply: { $0["pubkey"] = .string(flipHexBit(original.pubkey)) },
      expected: .success(.idMismatch)),
    Mutation(
      name: "id bit", apply: { $0["id"] = .string(flipHexBit(original.id)) }, expected: .success(.idMismatch)),
    Mutation(
      name: "sig bit", apply: { $0["sig"] = .string(flipHexBit(original.sig)) },
      expected: .success(.badSignature)),
    Mutation(
      name: "id uppercase", apply: { $0["id"] = .string(original.id.uppercased()) },
      expected: .failure(EventError(code: .invalidField, field: "id", message: ""))),
    Mutation(
      name: "pubkey non-hex", apply: { $0["pubkey"] = .string("g" + original.pubkey.dropFirst()) },
      expected: .failure(EventError(code: .invalidField, field: "pubkey", message: ""))),
    Mutation(
      name: "sig one short", apply: { $0["sig"] = .string(String(original.sig.dropLast())) },
      expected: .failure(EventError(code: .invalidField, field: "sig", message: ""))),
  ]

  @Test func startsFromAValidEvent() {
    #expect(Self.original.verify() == .valid(.common))
  }

  @Test(arguments: mutations)
  func refusesTheMutatedEvent(_ mutation: Mutation) {
    guard case .object(var object) = Self.original.jsonValue else {
      Issue.record("an event's jsonValue is an object")
      return
    }
    mutation.apply(&object)
    let outcome = Result { () throws(EventError) in
      try Event(json: JSONWriter.bytes(.object(object))).verify()
    }
    #expect(outcome == mutation.expected)
  }

  @Test func callsANonCurvePubkeyABadSignature() throws {
    // BIP-340 vector 5's public key is well-formed hex but not the x coordinate of a curve point.
    guard case .object(var object) = Self.original.jsonValue else { return }
    let offCurve = "eefdea4cdb677750a420fee807eacf21eb9898ae79b9768766e4faa04a2d4a34"
    let unsigned = UnsignedEvent(
      pubkey: offCurve, createdAt: Self.original.createdAt, kind: 1, tags: [], content: "x")
    let id = CanonicalSerializer.id(
      pubkey: unsigned.pubkey, createdAt: unsigned.createdAt, kind: 1, tags: [], content: "x", rule: .common)
    object["pubkey"] = .string(offCurve)
    object["tags"] = .array([])
    object["content"] = .string("x")
    object["id"] = .string(Hex.encode(id))
    let event = try Event(json: JSONWriter.bytes(.object(object)))
    #expect(event.verify() == .badSignature)
  }
}
