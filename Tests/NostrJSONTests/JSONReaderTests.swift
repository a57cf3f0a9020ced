import NostrJSON
import Testing

@Suite struct JSONReaderTests {
  let reader = JSONReader()

  @Test func keepsIntegersFloatsBooleansAndNullApart() throws {
    let value = try reader.read(#"[1, 1.0, 1e0, true, null, -0, 9223372036854775807, 9223372036854775808]"#)
    #expect(
      value
        == .array([
          .integer(1), .float(1), .float(1), .bool(true), .null, .integer(0),
          .integer(Int64.max), .float(9_223_372_036_854_775_808),
        ]))
  }

  @Test func keepsMemberOrder() throws {
    let value = try reader.read(#"{"z":1,"a":2,"m":3}"#)
    #expect(value.objectValue?.keys == ["z", "a", "m"])
  }

  @Test func reportsDuplicateKeysWithTheirPath() throws {
    let error = #expect(throws: JSONError.self) {
      try reader.read(#"{"push":{"keys":[{"id":"a"},{"id":"b","id":"c"}]}}"#)
    }
    #expect(error?.code == .duplicateKey)
    #expect(error?.field == "push.keys[1].id")
    #expect(error?.duplicateKey == "id")
  }

  @Test func namesADuplicateKeyThatLooksLikeAPath() throws {
    let error = #expect(throws: JSONError.self) { try reader.read(#"{"a":{"b.c[0]":1,"b.c[0]":2}}"#) }
    #expect(error?.duplicateKey == "b.c[0]")
    #expect(error?.field == "a.b.c[0]")
  }

  @Test(arguments: [
    (#"{"":1,"":2}"#, #""""#), (#"[{"":1,"":2}]"#, #"[0]."""#), (#"{"a":{"":{"x":1,"x":2}}}"#, #"a."".x"#),
  ])
  func writesAnEmptyMemberNameAsQuotesInThePath(document: String, path: String) throws {
    let error = #expect(throws: JSONError.self) { try reader.read(document) }
    #expect(error?.field == path)
  }

  @Test func reportsDuplicateKeysInLargeObjects() throws {
    let members = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
    let error = #expect(throws: JSONError.self) { try reader.read("{\(members),\"k7\":0}") }
    #expect(error?.code == .duplicateKey)
    #expect(error?.field == "k7")
  }

  @Test func decodesEscapesExactly() throws {
    let value = try reader.read(#""a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\u0000""#)
    #expect(value == .string("a\"\\/\u{8}\u{c}\n\r\t\u{e9}\u{1F600}\u{0}"))
  }

  @Test(arguments: [#""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\ud800x""#])
  func refusesLoneSurrogates(_ text: String) throws {
    let error = #expect(throws: JSONError.self) { try reader.read(text) }
    #expect(error?.code == .invalidUnicode)
  }

  @Test func refusesInvalidUTF8() throws {
    let error = #expect(throws: JSONError.self) {
      try reader.read([UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\"")])
    }
    #expect(error?.code == .invalidUnicode)
  }

  @Test(arguments: [
    "", "01", "1.", ".5", "+1", "-", "1e", "[1,]", "{\"a\":1,}", "{'a':1}", "[1] 2", "tru", "nul",
    "\"\u{1}\"", "\"\\x\"", "[", "{\"a\"}", "NaN", "Infinity", "\"unterminated", "1e999",
  ])
  func refusesInvalidSyntax(_ text: String) throws {
    let error = #expect(throws: JSONError.self) { try reader.read(text) }
    #expect(error?.code == .syntax)
  }

  @Test func boundsDepth() throws {
    let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    let error = #expect(throws: JSONError.self) { try reader.read(deep) }
    #expect(error?.code == .tooDeep)
    let allowed = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
    #expect(throws: Never.self) { try reader.read(allowed) }
  }

  @Test func boundsSize() throws {
    let small = JSONReader(maxBytes: 8)
    let error = #expect(throws: JSONError.self) { try small.read("\"123456789\"") }
    #expect(error?.code == .tooLarge)
    #expect(try small.read("\"123456\"") == .string("123456"))
  }
}

@Suite struct NostrStringEscaperTests {
  @Test func appliesTheCommonRule() {
    let input = "\"\\\n\r\t\u{8}\u{c}\u{0}\u{1f}/\u{7f}\u{2028}é"
    #expect(
      NostrStringEscaper.quoted(input)
        == "\"\\\"\\\\\\n\\r\\t\\b\\f\\u0000\\u001f/\u{7f}\u{2028}é\"")
  }

  @Test func literalRuleKeepsOtherControlsRaw() {
    #expect(NostrStringEscaper.quoted("a\u{1}\n", rule: .literal) == "\"a\u{1}\\n\"")
    #expect(NostrStringEscaper.rulesDiffer(for: "a\u{1}"))
    #expect(!NostrStringEscaper.rulesDiffer(for: "a\n\t"))
  }

  @Test func writerRoundTripsThroughTheReader() throws {
    let value = JSONValue.object(
      JSONObject([
        "s": .string("x\u{0}\"/"), "i": .integer(-5), "f": .float(2), "b": .bool(false), "n": .null,
        "a": .array([.integer(1), .array([])]),
      ]))
    let text = JSONWriter.string(value)
    #expect(text == #"{"s":"x\u0000\"/","i":-5,"f":2.0,"b":false,"n":null,"a":[1,[]]}"#)
    #expect(try JSONReader().read(text) == value)
  }
}
