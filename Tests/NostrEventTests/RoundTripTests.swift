import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import Testing

/// Seeded random events through our writer and reader, and through Foundation's as a second opinion.
@Suite struct RoundTripTests {
  static let key = try! SecretKey(hex: "497d61b134e1b293d8a57836d3cddb0e43eb68a757961dc14cb737cf9b54632e")
  static let cases = 2_000

  static func randomEvents(seed: UInt64, count: Int) throws -> [Event] {
    var fields = RandomEventFields(seed: seed)
    return try (0..<count).map { _ in
      try UnsignedEvent(
        pubkey: key.publicKeyHex, createdAt: fields.createdAt(), kind: fields.kind(), tags: fields.tags(),
        content: fields.text(maxPieces: 12)
      ).signed(with: key)
    }
  }

  /// The fields as exact UTF-8, since `String` equality would let a normalization change pass.
  static func exactFields(_ event: Event) -> [[UInt8]] {
    [event.id, event.pubkey, event.content, event.sig].map { Array($0.utf8) }
      + event.tags.flatMap { $0.map { Array($0.utf8) } + [[0xFF]] }
  }

  @Test func parsesEveryEncodedEventBackIdentical() throws {
    for event in try Self.randomEvents(seed: 0x5254_0001, count: Self.cases) {
      let bytes = event.jsonBytes()
      let reparsed = try Event(json: bytes)
      #expect(Self.exactFields(reparsed) == Self.exactFields(event))
      #expect(reparsed.createdAt == event.createdAt && reparsed.kind == event.kind)
      #expect(reparsed.jsonBytes() == bytes)
      #expect(reparsed.verify() == .valid(.common), "\(String(decoding: bytes, as: UTF8.self))")
    }
  }

  /// The scalars of `text` other than U+FEFF: swift-corelibs-foundation drops a U+FEFF that opens
  /// a string or follows an escape, a quirk of Foundation's reader that is not ours to test.
  static func withoutBOM(_ text: String) -> [Unicode.Scalar] {
    text.unicodeScalars.filter { $0 != "\u{FEFF}" }
  }

  @Test func writesJSONThatFoundationReadsToTheSameFields() throws {
    for event in try Self.randomEvents(seed: 0x5254_0002, count: Self.cases) {
      let text = String(decoding: event.jsonBytes(), as: UTF8.self)
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(event.jsonBytes())) as? [String: Any], "\(text)")
      #expect(
        (object["content"] as? String).map(Self.withoutBOM) == Self.withoutBOM(event.content), "\(text)")
      #expect((object["created_at"] as? NSNumber)?.int64Value == event.createdAt)
      #expect((object["kind"] as? NSNumber)?.intValue == event.kind)
      let tags = try #require(object["tags"] as? [[String]], "\(text)")
      #expect(tags.map { $0.map(Self.withoutBOM) } == event.tags.map { $0.map(Self.withoutBOM) }, "\(text)")
      #expect(object["id"] as? String == event.id)
      #expect(object["sig"] as? String == event.sig)
    }
  }

  @Test func readsWhatFoundationWritesToAnIdenticalEvent() throws {
    var random = SplitMix64(seed: 0x5254_0003)
    for event in try Self.randomEvents(seed: 0x5254_0004, count: Self.cases) {
      let object: [String: Any] = [
        "id": event.id, "pubkey": event.pubkey, "created_at": NSNumber(value: event.createdAt),
        "kind": NSNumber(value: event.kind), "tags": event.tags, "content": event.content, "sig": event.sig,
      ]
      let options: JSONSerialization.WritingOptions =
        Bool.random(using: &random) ? [.withoutEscapingSlashes] : [.prettyPrinted]
      let data = try JSONSerialization.data(withJSONObject: object, options: options)
      let parsed = try Event(json: [UInt8](data))
      #expect(Self.exactFields(parsed) == Self.exactFields(event), "\(String(decoding: data, as: UTF8.self))")
      #expect(parsed.jsonBytes() == event.jsonBytes())
      #expect(parsed.verify() == .valid(.common))
    }
  }
}
