import NIP44
import NostrEvent
import NostrJSON
import Testing

@testable import GiftWrap

/// Sealing and wrapping (NIP-59): the layers' shapes and times, and what the wrapper refuses.
@Suite struct GiftWrapperTests {
  let sender = SecretKey.generate()
  let recipient = SecretKey.generate()
  let now: Int64 = 1_767_225_600

  var wrapper: GiftWrapper { GiftWrapper(sender: sender) }

  func chat(_ text: String = "see you at eight", subject: String? = nil) -> UnsignedEvent {
    wrapper.chatRumor(to: [recipient.publicKeyHex], text: text, subject: subject, createdAt: now)
  }

  @Test func wrapsWithAOneTimeKeyAndOnePTag() throws {
    let wrap = try wrapper.wrap(chat(), for: recipient.publicKeyHex, now: now)
    #expect(wrap.kind == 1059)
    #expect(wrap.tags == [["p", recipient.publicKeyHex]])
    #expect(wrap.pubkey != sender.publicKeyHex)
    #expect(wrap.verify().isValid)
    #expect((now - WrapBackdate.maxSeconds...now).contains(wrap.createdAt))
    let opened = try GiftWrapOpening.open(wrap, recipient: recipient, rumorKinds: nil)
    #expect(opened.seal.kind == 13)
    #expect(opened.seal.tags.isEmpty)
    #expect(opened.seal.pubkey == sender.publicKeyHex)
    #expect((now - WrapBackdate.maxSeconds...now).contains(opened.seal.createdAt))
    #expect(opened.rumor == chat())
    #expect(opened.rumorID == chat().id)
  }

  @Test func setsTheWrapBackByAFixedAmount() throws {
    let wrap = try wrapper.wrap(
      chat(), for: recipient.publicKeyHex, now: now, backdate: try WrapBackdate(seconds: 169_200))
    #expect(wrap.createdAt == now - 169_200)
  }

  @Test func givesEveryWrapOfOneRumorItsIDAndAFreshKey() throws {
    let rumor = chat(subject: "dinner")
    let first = try wrapper.wrap(rumor, for: recipient.publicKeyHex, now: now)
    let second = try wrapper.wrap(rumor, for: recipient.publicKeyHex, now: now)
    #expect(first.pubkey != second.pubkey)
    let a = try DirectMessage(unwrapping: first, recipient: recipient)
    let b = try DirectMessage(unwrapping: second, recipient: recipient)
    #expect(a.id == b.id)
    #expect(a.id == rumor.id)
    #expect(a.subject == "dinner")
    #expect(a.recipients == [recipient.publicKeyHex])
  }

  @Test(arguments: [-1, 172_801, Int64.max])
  func refusesABackdateOutsideTwoDays(seconds: Int64) {
    #expect(throws: GiftWrapError(code: .invalidBackdate, field: "backdate", message: "")) {
      try WrapBackdate(seconds: seconds)
    }
  }

  @Test func refusesARumorByAnotherAuthor() {
    let other = GiftWrapper(sender: SecretKey.generate())
    let error = #expect(throws: GiftWrapError.self) {
      try other.wrap(chat(), for: recipient.publicKeyHex, now: now)
    }
    #expect(error?.code == .invalidRumor)
  }

  @Test(arguments: ["", "ABCD", String(repeating: "g", count: 64), String(repeating: "0", count: 64)])
  func refusesARecipientThatIsNotAPublicKey(recipient text: String) {
    let error = #expect(throws: GiftWrapError.self) {
      try wrapper.wrap(chat(), for: text, now: now)
    }
    #expect(error?.code == .invalidRecipient)
  }

  @Test func refusesAMessageLongerThanNIP44Carries() {
    let error = #expect(throws: GiftWrapError.self) {
      try wrapper.wrap(chat(String(repeating: "x", count: 60_000)), for: recipient.publicKeyHex, now: now)
    }
    #expect(error?.code == .messageTooLong)
  }

  @Test func wrapsAndOpensALongText() throws {
    let text = String(repeating: "x", count: 30_000)
    let wrap = try wrapper.wrap(chat(text), for: recipient.publicKeyHex, now: now)
    #expect(wrap.content.utf8.count <= NIP44.maxPayloadCharacters)
    #expect(try DirectMessage(unwrapping: wrap, recipient: recipient).content == text)
  }
}
