import NostrJSON
import Testing

@testable import NostrEvent

@Suite struct EventDocumentVerifierTests {
  /// What `Event(json:)` + `verify()` say about a document, in the verifier's terms (nil when the
  /// document does not parse).
  static func generalOutcome(_ document: [UInt8]) -> EventVerification? {
    (try? Event(json: document))?.verify()
  }

  /// The verifier's outcome without the id offset, or nil for `.uncommonShape`.
  static func verifierOutcome(_ verifier: EventDocumentVerifier, _ document: [UInt8]) -> EventVerification? {
    switch document.withUnsafeBytes({ verifier.verify($0) }) {
    case .valid(let rule, _): .valid(rule)
    case .idMismatch: .idMismatch
    case .badSignature: .badSignature
    case .uncommonShape: nil
    }
  }

  @Test(arguments: NIP01Vector.recorded + NIP01Vector.generated)
  func givesEveryVectorTheOutcomeOfTheEventPath(_ vector: NIP01Vector) {
    let document = JSONWriter.bytes(vector.event)
    let verifier = EventDocumentVerifier()
    let outcome = Self.verifierOutcome(verifier, document)
    // Exactly the documents the fast reader leaves to the general path (extra members, …).
    #expect((outcome == nil) == (document.withUnsafeBytes { EventFastReader.read($0) } == nil))
    if let outcome { #expect(outcome == Self.generalOutcome(document)) }
  }

  @Test func pointsAtTheIDInTheDocument() throws {
    let vector = try #require(NIP01Vector.recorded.first { $0.expect == "valid" })
    let document = Array("  ".utf8) + JSONWriter.bytes(vector.event)
    let outcome = document.withUnsafeBytes { EventDocumentVerifier().verify($0) }
    guard case .valid(.common, let offset) = outcome else {
      Issue.record("expected a valid event, got \(outcome)")
      return
    }
    #expect(
      String(decoding: document[offset..<(offset + 64)], as: UTF8.self)
        == vector.event.objectValue?["id"]?.stringValue)
  }

  /// Signed events with every kind of text, spelled in random legal ways (escapes, `\u`, pairs,
  /// whitespace, member order), some signed over the literal NIP-01 id, then mutated: the
  /// verifier either leaves a document to the general path or agrees with it exactly.
  @Test func agreesWithTheEventPathOnSignedAndMutatedDocuments() throws {
    var generator = DocumentGenerator(random: SeededRandom(state: 0x7665_7269_6679))
    let key = try SecretKey(hex: String(repeating: "0", count: 63) + "3")
    let verifier = EventDocumentVerifier()
    var verified = [EventVerification: Int]()
    var judged = 0
    for index in 0..<1_500 {
      let random = generator.event()
      let unsigned = UnsignedEvent(
        pubkey: key.publicKeyHex, createdAt: random.createdAt, kind: random.kind, tags: random.tags,
        content: random.content)
      let rule: NostrStringEscaper.Rule = index % 3 == 0 ? .literal : .common
      let event = try unsigned.signed(with: key, rule: rule)
      var document = generator.document(event)
      if index % 2 == 1 { document = generator.mutate(document) }
      let general = Self.generalOutcome(document)
      let outcome = Self.verifierOutcome(verifier, document)
      #expect((outcome == nil) == (document.withUnsafeBytes { EventFastReader.read($0) } == nil))
      guard let outcome else { continue }
      judged += 1
      #expect(outcome == general, "\(String(decoding: document, as: UTF8.self))")
      verified[outcome, default: 0] += 1
    }
    #expect(judged > 700)
    #expect(verified[.valid(.common), default: 0] > 100)
    #expect(verified[.valid(.literal), default: 0] > 50)
    #expect(verified[.idMismatch, default: 0] + verified[.badSignature, default: 0] > 20)
  }

  @Test func judgesADocumentLargerThanItsBufferTheSameWay() throws {
    let key = try SecretKey(hex: String(repeating: "0", count: 63) + "5")
    let content = String(repeating: "long \"quoted\" text é 🎉\n", count: 20_000)
    let event = try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: 1_700_000_000, kind: 1, tags: [["t", "big"]], content: content
    ).signed(with: key)
    let document = event.jsonBytes()
    #expect(document.count > EventDocumentVerifier.retainedBytes)
    #expect(Self.verifierOutcome(EventDocumentVerifier(), document) == .valid(.common))
  }

  @Test func leavesMalformedAndUncommonDocumentsToTheGeneralPath() {
    let verifier = EventDocumentVerifier()
    for text in [
      "", "garbage", "{}", EventParsingTests.document(extra: #","extra":1"#),
      EventParsingTests.document(content: #""\ud800x""#), EventParsingTests.document(content: "\"\u{01}\""),
    ] {
      #expect(Self.verifierOutcome(verifier, Array(text.utf8)) == nil, "\(text)")
    }
    // "é" (C3 A9) with its second byte replaced: invalid UTF-8, raw and behind an escape.
    for content in [#""aé""#, #""\nabé""#] {
      let invalidUTF8 = Array(EventParsingTests.document(content: content).utf8).map {
        $0 == 0xA9 ? 0x41 : $0
      }
      #expect(Self.generalOutcome(invalidUTF8) == nil)
      #expect(Self.verifierOutcome(verifier, invalidUTF8) == nil)
    }
  }
}
