import NostrJSON
import Testing

@testable import NostrEvent

@Suite struct EventParsingTests {
  static let id = String(repeating: "a", count: 64)
  static let pubkey = String(repeating: "b", count: 64)
  static let sig = String(repeating: "c", count: 128)

  /// An event document with `createdAt` and `kind` written as raw JSON text.
  static func document(
    id: String = id, createdAt: String = "1700000000", kind: String = "1", tags: String = "[]",
    content: String = "\"hi\"", extra: String = ""
  ) -> String {
    """
    {"id":"\(id)","pubkey":"\(pubkey)","created_at":\(createdAt),"kind":\(kind),"tags":\(tags),\
    "content":\(content),"sig":"\(sig)"\(extra)}
    """
  }

  static let invalidFields: [(document: String, field: String)] = [
    (document(createdAt: "1.0"), "created_at"),
    (document(createdAt: "1e3"), "created_at"),
    (document(createdAt: "\"1700000000\""), "created_at"),
    (document(createdAt: "-1"), "created_at"),
    (document(createdAt: "9007199254740992"), "created_at"),
    (document(kind: "65536"), "kind"),
    (document(kind: "-1"), "kind"),
    (document(kind: "1.5"), "kind"),
    (document(tags: "{}"), "tags"),
    (document(tags: "[\"e\"]"), "tags"),
    (document(tags: "[[\"e\",1]]"), "tags"),
    (document(content: "null"), "content"),
    (document(id: "+" + String(repeating: "a", count: 63)), "id"),
    (document(id: " " + String(repeating: "a", count: 63)), "id"),
    (document(id: String(repeating: "A", count: 64)), "id"),
    (document(id: String(repeating: "a", count: 66)), "id"),
    ("{\"pubkey\":\"\(pubkey)\"}", "id"),
  ]

  @Test(arguments: invalidFields.indices)
  func refusesAnInvalidFieldNamingIt(_ index: Int) {
    let (document, field) = Self.invalidFields[index]
    let error = #expect(throws: EventError.self) { try Event(json: document) }
    #expect(error?.code == .invalidField)
    #expect(error?.field == field)
    #expect(error?.message.contains(field) == true)
  }

  @Test func acceptsTheLargestCreatedAtAndKind() throws {
    let event = try Event(json: Self.document(createdAt: "9007199254740991", kind: "65535"))
    #expect(event.createdAt == 9_007_199_254_740_991)
    #expect(event.kind == 65535)
  }

  @Test func ignoresUnknownMembers() throws {
    let event = try Event(json: Self.document(extra: ",\"seen_on\":[1,2]"))
    #expect(event.content == "hi")
  }

  @Test func decodesEscapesExactly() throws {
    let event = try Event(json: Self.document(content: #""a\u0000\ud83c\udf89\/\n""#))
    #expect(event.content == "a\u{0}🎉/\n")
  }

  static let malformedDocuments: [String] = [
    document(extra: ",\"kind\":1"),
    document(tags: "[[\"e\",\"x\"]]", extra: ",\"x\":{\"a\":1,\"a\":2}"),
    document(content: #""\ud800""#),
    document(content: #""\udc00x""#),
    "[1,2,3]",
    "not json",
    "{\"id\":",
    "",
  ]

  @Test(arguments: malformedDocuments)
  func refusesMalformedJSON(_ document: String) {
    let error = #expect(throws: EventError.self) { try Event(json: document) }
    #expect(error?.code == .malformedJSON)
    #expect(error?.field == nil)
  }

  @Test func refusesDeepNestingWithoutCrashing() {
    let nested = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    let error = #expect(throws: EventError.self) { try Event(json: Self.document(extra: ",\"x\":" + nested)) }
    #expect(error?.code == .malformedJSON)
    #expect(error?.message.contains("64") == true)
  }

  @Test func refusesATwentyMebibyteEvent() {
    let content = "\"" + String(repeating: "x", count: 20 * 1024 * 1024) + "\""
    let error = #expect(throws: EventError.self) {
      try Event(json: Array(Self.document(content: content).utf8))
    }
    #expect(error?.code == .malformedJSON)
    #expect(error?.message.contains("limit") == true)
  }

  @Test func refusesMoreThanTheMaximumTags() {
    let tags = "[" + Array(repeating: "[]", count: Event.maxTags + 1).joined(separator: ",") + "]"
    let error = #expect(throws: EventError.self) { try Event(json: Self.document(tags: tags)) }
    #expect(error == EventError(code: .invalidField, field: "tags", message: ""))
  }

  @Test func roundTripsThroughJSONBytes() throws {
    let key = try SecretKey(hex: String(repeating: "0", count: 63) + "3")
    let event = try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: 1, kind: 7, tags: [["p", Self.pubkey], []], content: "\u{1}\"\\"
    ).signed(with: key)
    let reparsed = try Event(json: event.jsonBytes())
    #expect(reparsed == event)
    #expect(reparsed.verify() == .valid(.common))
    #expect(event.tagValues("p") == [Self.pubkey])
  }

  @Test func refusesSigningWithAnotherKeysPubkey() {
    let key = SecretKey.generate()
    let error = #expect(throws: EventError.self) {
      try UnsignedEvent(pubkey: Self.pubkey, createdAt: 1, kind: 1, tags: [], content: "").signed(with: key)
    }
    #expect(error?.field == "pubkey")
  }

  @Test func verifiesABatchInOrder() throws {
    let key = SecretKey.generate()
    var events: [Event] = []
    for index in 0..<200 {
      events.append(
        try UnsignedEvent(
          pubkey: key.publicKeyHex, createdAt: Int64(index), kind: 1, tags: [], content: "\(index)"
        )
        .signed(with: key))
    }
    var documents = events.map { $0.jsonBytes() }
    documents[7] = Array(Self.document().utf8)
    documents[9] = Array("nope".utf8)
    let results = BatchVerifier.verify(jsonDocuments: documents)
    #expect(results.count == 200)
    #expect(results[0] == .success(.valid(.common)))
    #expect(results[7] == .success(.idMismatch))
    #expect(results[9] == .failure(EventError(code: .malformedJSON, message: "")))
    #expect(results.filter { (try? $0.get())?.isValid == true }.count == 198)
    #expect(BatchVerifier.verify(events).allSatisfy { $0 == .valid(.common) })
  }
}
