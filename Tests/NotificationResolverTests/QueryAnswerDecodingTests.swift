import Foundation
import NostrEvent
import NostrJSON
import Testing

@testable import NotificationResolver

/// `/query` answers read through the fast event reader give what the strict reader and
/// `Event(jsonValue:)` give: the same events in the same order, the same failures.
@Suite struct QueryAnswerDecodingTests {
  static let key = try! SecretKey(hex: String(repeating: "0", count: 63) + "9")

  static func signed(_ content: String, tags: [[String]] = [], createdAt: Int64 = 1_700_000_000) -> Event {
    try! UnsignedEvent(pubkey: key.publicKeyHex, createdAt: createdAt, kind: 1, tags: tags, content: content)
      .signed(with: key)
  }

  /// The strict route, written out: what every answer must come to.
  static func expected(_ body: [UInt8], cap: Int) -> Result<[Event], RelayFailure> {
    guard body.count <= cap, case .array(let elements)? = try? JSONReader(maxBytes: cap).read(body) else {
      return .failure(RelayFailure(.invalidResponse, ""))
    }
    return .success(
      elements.compactMap { element in
        (try? Event(jsonValue: element)).flatMap { $0.verify().isValid ? $0 : nil }
      })
  }

  static func decoded(_ body: [UInt8], cap: Int) -> Result<[Event], RelayFailure> {
    Result { () throws(RelayFailure) in try RelayClient.verifiedEvents(in: body, cap: cap) }
  }

  static let valid = [
    signed("hello"),
    signed("line\nbreak \"quoted\" é 🎉", tags: [["e", String(repeating: "a", count: 64)], []]),
    signed("third", createdAt: 1_700_000_123),
  ]

  static var bodies: [(name: String, body: String)] {
    let documents = valid.map { String(decoding: $0.jsonBytes(), as: UTF8.self) }
    var forged = documents[0]
    forged = forged.replacingOccurrences(of: "\"hello\"", with: "\"hellO\"")
    let extra = documents[1].dropLast() + ",\"extra\":[1,2]}"
    return [
      ("three events", "[" + documents.joined(separator: ",") + "]"),
      ("whitespace", " [\n" + documents.joined(separator: " ,\n ") + "\n] "),
      ("empty", "[]"),
      (
        "a forged event among good ones",
        "[" + [documents[0], forged, documents[2]].joined(separator: ",") + "]"
      ),
      ("an element with an extra member", "[" + documents[0] + "," + extra + "]"),
      ("an element that is not an event", "[" + documents[0] + ",{\"id\":7},[],\"x\"]"),
      ("not an array", documents[0]),
      ("not JSON", "[" + documents[0] + ","),
      ("trailing data", "[" + documents[0] + "] x"),
    ]
  }

  @Test(arguments: bodies.map(\.name)) func decodesTheAnswerAsTheStrictReaderDoes(name: String) throws {
    let body = Array(try #require(Self.bodies.first { $0.name == name }).body.utf8)
    let decoded = Self.decoded(body, cap: 1 << 20)
    switch (decoded, Self.expected(body, cap: 1 << 20)) {
    case (.success(let events), .success(let expected)):
      #expect(events == expected)
    case (.failure(let failure), .failure):
      #expect(failure.reason == .invalidResponse)
    default:
      Issue.record("\(name): decoded \(decoded), expected \(Self.expected(body, cap: 1 << 20))")
    }
  }

  @Test func keepsOnlyTheVerifiedEventsInOrder() throws {
    let body = Array(Self.bodies[3].body.utf8)
    let events = try RelayClient.verifiedEvents(in: body, cap: 1 << 20)
    #expect(events.map(\.id) == [Self.valid[0].id, Self.valid[2].id])
  }

  @Test func refusesAnAnswerOverTheCap() throws {
    let body = Array(Self.bodies[0].body.utf8)
    let failure = try #require(throws: RelayFailure.self) {
      try RelayClient.verifiedEvents(in: body, cap: body.count - 1)
    }
    #expect(failure.reason == .invalidResponse)
    #expect(try RelayClient.verifiedEvents(in: body, cap: body.count).count == 3)
  }
}
