import NostrJSON
import Testing

@testable import NostrEvent

@Suite struct FilterTests {
  static let key = try! SecretKey(hex: "41ad4a9d72aaf80a611fddc7e48ea51d96c0a983654405989a4d8e958e612690")
  static let other = String(repeating: "1", count: 64)
  static let event: Event = try! UnsignedEvent(
    pubkey: key.publicKeyHex, createdAt: 1000, kind: 9,
    tags: [["p", other], ["h", "general"], ["e"]], content: "hi"
  ).signed(with: key)

  static let table: [(filter: String, matches: Bool)] = [
    ("{}", true),
    ("{\"kinds\":[9]}", true),
    ("{\"kinds\":[1,7]}", false),
    ("{\"kinds\":[]}", false),
    ("{\"ids\":[\"\(event.id)\"]}", true),
    ("{\"ids\":[\"\(other)\"]}", false),
    ("{\"authors\":[\"\(other)\",\"\(event.pubkey)\"]}", true),
    ("{\"authors\":[\"\(other)\"]}", false),
    ("{\"#p\":[\"\(other)\"]}", true),
    ("{\"#p\":[\"\(event.pubkey)\"]}", false),
    ("{\"#h\":[\"general\"],\"#p\":[\"\(other)\"]}", true),
    ("{\"#h\":[\"random\"],\"#p\":[\"\(other)\"]}", false),
    ("{\"#e\":[\"\"]}", false),
    ("{\"#P\":[\"\(other)\"]}", false),
    ("{\"since\":1000}", true),
    ("{\"since\":1001}", false),
    ("{\"until\":1000}", true),
    ("{\"until\":999}", false),
    ("{\"kinds\":[9],\"since\":1001}", false),
    ("{\"limit\":0,\"kinds\":[9]}", true),
    ("{\"search\":\"x\",\"kinds\":[9]}", true),
  ]

  @Test(arguments: table.indices)
  func matchesPerTheTable(_ index: Int) throws {
    let (text, expected) = Self.table[index]
    let filter = try Filter(jsonValue: JSONReader().read(text))
    #expect(filter.matches(Self.event) == expected, "\(text)")
  }

  @Test func matchesWhenAnyFilterOfAListMatches() {
    let none = Filter(kinds: [1])
    let some = Filter(tags: ["p": [Self.other]])
    #expect([none, some].matches(Self.event))
    #expect(![none, Filter(since: 2000)].matches(Self.event))
    #expect(![Filter]().matches(Self.event))
  }

  static let refused: [(filter: String, code: EventError.Code, field: String?)] = [
    ("[]", .malformedJSON, nil),
    ("{\"kinds\":9}", .wrongType, "kinds"),
    ("{\"kinds\":[70000]}", .invalidValue, "kinds[0]"),
    ("{\"kinds\":[1.0]}", .wrongType, "kinds[0]"),
    ("{\"ids\":[\"ABC\"]}", .invalidValue, "ids[0]"),
    ("{\"authors\":[1]}", .wrongType, "authors[0]"),
    ("{\"#pp\":[\"x\"]}", .invalidValue, "#pp"),
    ("{\"#p\":[1]}", .wrongType, "#p[0]"),
    ("{\"since\":-1}", .invalidValue, "since"),
    ("{\"until\":\"1\"}", .wrongType, "until"),
    ("{\"limit\":-5}", .invalidValue, "limit"),
  ]

  @Test(arguments: refused.indices)
  func refusesABadFilterNamingTheMember(_ index: Int) throws {
    let (text, code, field) = Self.refused[index]
    let value = try JSONReader().read(text)
    let error = #expect(throws: EventError.self) { try Filter(jsonValue: value) }
    #expect(error?.code == code)
    #expect(error?.field == field)
  }

  @Test func refusesAnOverlongList() throws {
    let ids = Array(repeating: "\"\(Self.other)\"", count: Filter.maxValues + 1).joined(separator: ",")
    let value = try JSONReader().read("{\"ids\":[\(ids)]}")
    #expect(throws: EventError(code: .tooMany, field: "ids", message: "")) { try Filter(jsonValue: value) }
  }

  @Test func roundTripsThroughJSON() throws {
    let filter = Filter(
      ids: [Self.other], authors: [Self.event.pubkey], kinds: [1, 9], tags: ["p": ["x"], "e": ["y"]],
      since: 5, until: 6, limit: 7)
    #expect(try Filter(jsonValue: filter.jsonValue) == filter)
    #expect(
      JSONWriter.string(filter.jsonValue)
        == "{\"ids\":[\"\(Self.other)\"],\"authors\":[\"\(Self.event.pubkey)\"],\"kinds\":[1,9],"
        + "\"#e\":[\"y\"],\"#p\":[\"x\"],\"since\":5,\"until\":6,\"limit\":7}")
  }

  @Test func readsAListOfFiltersAndNamesTheFaultyOne() throws {
    let pubkey = String(repeating: "a", count: 64)
    let filters = try Filter.list(json: Array(("[{\"kinds\":[9]},{\"#p\":[\"" + pubkey + "\"]}]").utf8))
    #expect(filters.count == 2)
    #expect(filters[0].kinds == [9])
    let error = #expect(throws: EventError.self) {
      try Filter.list(json: Array(#"[{"kinds":[9]},{"since":"soon"}]"#.utf8))
    }
    #expect(error?.field == "[1].since")
    #expect(throws: EventError(code: .malformedJSON, message: "")) {
      try Filter.list(json: Array("[]".utf8))
    }
    #expect(throws: EventError(code: .malformedJSON, message: "")) {
      try Filter.list(json: Array("{}".utf8))
    }
  }
}
