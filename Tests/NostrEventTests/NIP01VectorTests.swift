import NostrJSON
import Testing

@testable import NostrEvent

/// One entry of `nip01-events.json` or `nip01-generated.json`.
struct NIP01Vector: Sendable, CustomTestStringConvertible {
  var file: String
  var position: Int
  var event: JSONValue
  var expect: String
  var canonical: String?
  var literalID: String?

  var testDescription: String { "\(file) #\(position) \(expect)" }

  static let recorded: [NIP01Vector] = {
    let root = VectorFiles.json("nip01-events.json")
    let entries = root.objectValue?["events"]?.arrayValue ?? []
    return entries.enumerated().map { position, entry in
      let object = entry.objectValue!
      return NIP01Vector(
        file: "nip01-events.json", position: position, event: object["event"]!,
        expect: object["expect"]!.stringValue!, canonical: object["canonical_serialization"]?.stringValue)
    }
  }()

  static let generated: [NIP01Vector] = {
    let root = VectorFiles.json("nip01-generated.json")
    let entries = root.objectValue?["vectors"]?.arrayValue ?? []
    return entries.enumerated().map { position, entry in
      let object = entry.objectValue!
      return NIP01Vector(
        file: "nip01-generated.json", position: position, event: object["event"]!, expect: "valid",
        canonical: object["canonical_serialization_common"]?.stringValue,
        literalID: object["id_if_nip01_text_literal_escaping"]?.stringValue)
    }
  }()

  static let generatedSecretKey: String =
    VectorFiles.json("nip01-generated.json").objectValue!["secret_key_hex"]!.stringValue!
}

@Suite struct NIP01VectorTests {
  @Test func readsEveryVector() {
    #expect(NIP01Vector.recorded.count == 106)
    #expect(NIP01Vector.generated.count == 32)
  }

  @Test(arguments: NIP01Vector.recorded + NIP01Vector.generated)
  func givesTheListedOutcome(_ vector: NIP01Vector) throws {
    let bytes = JSONWriter.bytes(vector.event)
    if vector.expect.contains("malformed") {
      let error = try #require(throws: EventError.self) { try Event(json: bytes) }
      #expect(error.code == .invalidField)
      #expect(["id", "pubkey", "sig"].contains(error.field ?? ""))
      return
    }
    let event = try Event(json: bytes)
    let outcome = event.verify()
    if vector.expect == "valid" {
      #expect(outcome == .valid(.common))
    } else if vector.expect.contains("signature") {
      #expect(outcome == .badSignature)
    } else {
      #expect(outcome == .idMismatch)
    }
    if let canonical = vector.canonical {
      #expect(event.canonicalBytes() == Array(canonical.utf8))
    }
  }

  @Test(arguments: NIP01Vector.generated.filter { $0.literalID != nil })
  func computesTheLiteralID(_ vector: NIP01Vector) throws {
    let event = try Event(jsonValue: vector.event)
    #expect(event.computedID(rule: .literal) == vector.literalID)
    #expect(event.needsLiteralForm)
  }

  @Test(arguments: NIP01Vector.generated.filter { $0.literalID != nil })
  func acceptsAnEventSignedOverTheLiteralID(_ vector: NIP01Vector) throws {
    let original = try Event(jsonValue: vector.event)
    let key = try SecretKey(hex: NIP01Vector.generatedSecretKey)
    let unsigned = UnsignedEvent(
      pubkey: original.pubkey, createdAt: original.createdAt, kind: original.kind, tags: original.tags,
      content: original.content)
    let literal = try unsigned.signed(with: key, rule: .literal)
    #expect(literal.id == vector.literalID)
    let reparsed = try Event(json: literal.jsonBytes())
    #expect(reparsed.verify() == .valid(.literal))
  }

  @Test func keepsAnEmptyTag() throws {
    let vector = try #require(NIP01Vector.recorded.first { $0.expect.contains("[[]]") })
    let event = try Event(jsonValue: vector.event)
    #expect(event.tags == [[]])
  }
}
