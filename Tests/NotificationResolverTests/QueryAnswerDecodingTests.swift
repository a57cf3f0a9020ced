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

  static func answer(_ events: [Event]) -> [UInt8] {
    Array(
      ("[" + events.map { String(decoding: $0.jsonBytes(), as: UTF8.self) }.joined(separator: ",") + "]").utf8
    )
  }

  static func tags(_ count: Int, elements: Int = 2) -> [[String]] {
    (0..<count).map { index in ["t"] + (1..<elements).map { _ in "v\(index)" } }
  }

  /// §1: an event over 2 000 tags, a tag over 16 elements or a string over 64 KiB is dropped
  /// while it is read; the events beside it are kept.
  /// An answer cut at its cap (the transport's truncated prefix) keeps every whole event before
  /// the cut; the element the cut fell in is dropped and counted, and the same bytes read as a
  /// whole answer are refused.
  @Test func keepsTheWholeEventsBeforeTheCut() throws {
    let whole = JSONWriter.bytes(
      .array((Self.valid + [Self.signed(String(repeating: "x", count: 4000))]).map(\.jsonValue)))
    let cut = Array(whole.prefix(whole.count - 100))
    let read = try #require(
      cut.withUnsafeBytes {
        EventFastReader.readArray($0, maxBytes: cut.count, limits: .notification, isCut: true)
      })
    #expect(read.events == Self.valid)
    #expect(read.dropped == 1)
    #expect(read.cut)
    #expect(try RelayClient.verifiedEvents(in: cut, cap: cut.count, isCut: true) == Self.valid)
    #expect(throws: RelayFailure(.invalidResponse, "")) {
      try RelayClient.verifiedEvents(in: cut, cap: cut.count)
    }
    // Cut right after a separator, or between elements: the whole events are still kept.
    let afterComma = Array(whole.prefix(Self.valid.map { $0.jsonBytes().count + 1 }.reduce(1, +)))
    #expect(try RelayClient.verifiedEvents(in: afterComma, cap: afterComma.count, isCut: true) == Self.valid)
    // A whole answer read as cut is read whole.
    let all = try RelayClient.verifiedEvents(in: whole, cap: whole.count, isCut: true)
    #expect(all.count == 4)
  }

  @Test func dropsElementsOverTheBoundsAndKeepsTheOthers() throws {
    let limits = EventReadLimits.notification
    let kept = [
      Self.signed("most tags", tags: Self.tags(limits.maxTagsPerEvent)),
      Self.signed("widest tag", tags: Self.tags(1, elements: limits.maxTagElements)),
      Self.signed(String(repeating: "x", count: limits.maxStringBytes)),
    ]
    let dropped = [
      Self.signed("too many tags", tags: Self.tags(limits.maxTagsPerEvent + 1)),
      Self.signed("too wide a tag", tags: Self.tags(1, elements: limits.maxTagElements + 1)),
      Self.signed(String(repeating: "x", count: limits.maxStringBytes + 1)),
      Self.signed(
        "too long a tag value", tags: [["t", String(repeating: "y", count: limits.maxStringBytes + 1)]]),
    ]
    let events = try RelayClient.verifiedEvents(in: Self.answer(dropped + kept), cap: 1 << 20)
    #expect(events.map(\.id) == kept.map(\.id))
    let read = Self.answer(dropped + kept).withUnsafeBytes {
      EventFastReader.readArray($0, maxBytes: 1 << 20, limits: limits)
    }
    #expect(read?.dropped == dropped.count)
  }

  /// §1: an answer materialises at most 20 000 tags; the events past that are dropped whole.
  @Test func materialisesAtMostTheAnswersTagTotal() throws {
    let limits = EventReadLimits.notification
    let perEvent = limits.maxTagsPerEvent
    let events = (0..<(limits.maxTotalTags / perEvent + 1)).map {
      Self.signed("event \($0)", tags: Self.tags(perEvent))
    }
    let small = Self.signed("no tags")
    let read = try RelayClient.verifiedEvents(in: Self.answer(events + [small]), cap: 1 << 22)
    #expect(read.map(\.id) == events.prefix(limits.maxTotalTags / perEvent).map(\.id) + [small.id])
  }
}
