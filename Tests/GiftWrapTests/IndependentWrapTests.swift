import Foundation
import NostrEvent
import NostrJSON
import Testing

@testable import GiftWrap

/// Wraps made by another implementation open to the rumor it wrapped; NIP-59's own example
/// opens layer by layer to its published ids.
@Suite struct IndependentWrapTests {
  @Test(arguments: GiftWrapFixtures.recipientCases())
  func opensAWrapMadeByRustNostr(_ fixture: GiftWrapFixtures.Case) throws {
    let message = try DirectMessage(
      unwrapping: fixture.wrap, recipient: try GiftWrapFixtures.key("recipient_secret_key"))
    #expect(message.id == fixture.rumorID)
    #expect(message.wrapID == fixture.wrap.id)
    #expect(message.author == fixture.author)
    #expect(message.author == (try GiftWrapFixtures.key("sender_secret_key")).publicKeyHex)
    #expect(message.createdAt == fixture.createdAt)
    #expect(message.kind == fixture.kind)
    #expect(message.content == fixture.content)
    #expect(message.tags == fixture.tags)
  }

  @Test func readsTheSubjectAndRecipientsOfAGroupMessage() throws {
    let fixture = try GiftWrapFixtures.namedCase("group_with_subject")
    let message = try DirectMessage(
      unwrapping: fixture.wrap, recipient: try GiftWrapFixtures.key("recipient_secret_key"))
    #expect(message.subject == "Trip planning")
    #expect(
      message.recipients == [
        try GiftWrapFixtures.key("recipient_secret_key").publicKeyHex,
        try GiftWrapFixtures.key("other_secret_key").publicKeyHex,
      ])
    let other = try GiftWrapFixtures.namedCase("group_for_other")
    let copy = try DirectMessage(
      unwrapping: other.wrap, recipient: try GiftWrapFixtures.key("other_secret_key"))
    #expect(copy.id == message.id)
    #expect(copy.wrapID != message.wrapID)
  }

  @Test func givesTwoWrapsOfOneRumorTheSameID() throws {
    let key = try GiftWrapFixtures.key("recipient_secret_key")
    let first = try DirectMessage(unwrapping: try GiftWrapFixtures.namedCase("chat").wrap, recipient: key)
    let second = try DirectMessage(
      unwrapping: try GiftWrapFixtures.namedCase("chat_again").wrap, recipient: key)
    #expect(first.wrapID != second.wrapID)
    #expect(first.id == second.id)
    #expect(first.subject == nil)
  }

  @Test func refusesAWrapForAnotherKey() throws {
    let fixture = try GiftWrapFixtures.namedCase("for_outsider")
    let error = #expect(throws: GiftWrapError.self) {
      try DirectMessage(unwrapping: fixture.wrap, recipient: try GiftWrapFixtures.key("recipient_secret_key"))
    }
    #expect(error?.code == .wrapUnopened)
    let outsider = try DirectMessage(
      unwrapping: fixture.wrap, recipient: try GiftWrapFixtures.key("outsider_secret_key"))
    #expect(outsider.id == fixture.rumorID)
  }

  @Test func opensTheNIP59ExampleToItsRumor() throws {
    let example = try GiftWrapFixtures.document(GiftWrapFixtures.examplePath)
    let wrap = try Event(jsonValue: try #require(example["wrap"]))
    let seal = try Event(jsonValue: try #require(example["seal"]))
    let rumor = try #require(example["rumor"]?.objectValue)
    let recipient = try SecretKey(hex: try #require(example["recipient_secret_key"]?.stringValue))
    let opened = try GiftWrapOpening.open(wrap, recipient: recipient, rumorKinds: nil)
    #expect(opened.seal == seal)
    #expect(opened.rumorID == rumor["id"]?.stringValue)
    #expect(opened.rumor.id == rumor["id"]?.stringValue)
    #expect(opened.rumor.content == rumor["content"]?.stringValue)
    #expect(opened.rumor.pubkey == seal.pubkey)
    let sender = try SecretKey(hex: try #require(example["sender_secret_key"]?.stringValue))
    #expect(sender.publicKeyHex == seal.pubkey)
    let ephemeral = try SecretKey(hex: try #require(example["ephemeral_secret_key"]?.stringValue))
    #expect(ephemeral.publicKeyHex == wrap.pubkey)
  }

  @Test func refusesTheNIP59ExampleAsADirectMessageForItsKind() throws {
    let example = try GiftWrapFixtures.document(GiftWrapFixtures.examplePath)
    let wrap = try Event(jsonValue: try #require(example["wrap"]))
    let recipient = try SecretKey(hex: try #require(example["recipient_secret_key"]?.stringValue))
    let error = #expect(throws: GiftWrapError.self) {
      try DirectMessage(unwrapping: wrap, recipient: recipient)
    }
    #expect(error?.code == .rumorKind)
  }
}
