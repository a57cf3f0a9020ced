import Foundation
import NostrJSON
import Testing

@testable import NostrEvent

/// A NIP-59 rumor (an unsigned event, `id` optional): read with the event field rules, its id
/// computed and checked under either escaping rule.
@Suite struct RumorTests {
  let key = SecretKey.generate()

  func rumor(content: String = "hi") -> UnsignedEvent {
    UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: 1_767_225_600, kind: 14, tags: [["p", key.publicKeyHex]],
      content: content)
  }

  @Test func hasTheIDOfTheSignedEventWithTheSameFields() throws {
    let rumor = rumor()
    #expect(rumor.id == (try rumor.signed(with: key)).id)
    #expect(rumor.hasID(rumor.id))
    #expect(!rumor.hasID(String(repeating: "0", count: 64)))
  }

  @Test func acceptsAnIDComputedUnderTheLiteralRule() {
    let rumor = rumor(content: "bell \u{07}")
    let literal = Hex.encode(
      CanonicalSerializer.id(
        pubkey: rumor.pubkey, createdAt: rumor.createdAt, kind: rumor.kind, tags: rumor.tags,
        content: rumor.content, rule: .literal))
    #expect(literal != rumor.id)
    #expect(rumor.hasID(literal))
    #expect(rumor.hasID(rumor.id))
  }

  @Test func readsBackWhatItWritesWithTheID() throws {
    let rumor = rumor(content: "line\nbreak \"quoted\"")
    let (read, id) = try UnsignedEvent.rumor(
      jsonValue: try JSONReader().read(JSONWriter.string(rumor.rumorJSONValue)))
    #expect(read == rumor)
    #expect(id == rumor.id)
  }

  @Test func readsARumorWithoutIDOrSignatureAndIgnoresASignature() throws {
    let text =
      #"{"pubkey":"\#(key.publicKeyHex)","created_at":5,"kind":15,"tags":[],"content":"x","sig":"not checked"}"#
    let (read, id) = try UnsignedEvent.rumor(jsonValue: try JSONReader().read(text))
    #expect(id == nil)
    #expect(read.kind == 15)
  }

  @Test(arguments: [
    (#"{"created_at":1,"kind":14,"tags":[],"content":""}"#, "pubkey"),
    (#"{"pubkey":"AB","created_at":1,"kind":14,"tags":[],"content":""}"#, "pubkey"),
    (#"{"pubkey":"PK","kind":14,"tags":[],"content":""}"#, "created_at"),
    (#"{"pubkey":"PK","created_at":1,"kind":14,"tags":[[1]],"content":""}"#, "tags"),
    (#"{"pubkey":"PK","created_at":1,"kind":14,"tags":[],"content":1}"#, "content"),
    (#"{"id":"short","pubkey":"PK","created_at":1,"kind":14,"tags":[],"content":""}"#, "id"),
  ])
  func refusesAMissingOrMistypedField(text: String, field: String) throws {
    let value = try JSONReader().read(text.replacingOccurrences(of: "PK", with: key.publicKeyHex))
    let error = #expect(throws: EventError.self) { try UnsignedEvent.rumor(jsonValue: value) }
    #expect(error?.field == field)
  }
}
