import NIP44
import NostrEvent
import NostrJSON
import Testing

@testable import GiftWrap

/// Each rule of the unwrap list, broken alone, refuses the wrap with its own code
/// (extension side).
@Suite struct RefusalTests {
  let layers = LayerBuilder()

  func refusal(_ wrap: Event, key: SecretKey? = nil) -> GiftWrapError? {
    do {
      _ = try DirectMessage(unwrapping: wrap, recipient: key ?? layers.recipient)
      return nil
    } catch {
      return error
    }
  }

  @Test func opensAWellFormedHandBuiltWrap() throws {
    let wrap = try layers.wrap(seal: try layers.seal(layers.rumorJSON()))
    let message = try DirectMessage(unwrapping: wrap, recipient: layers.recipient)
    #expect(message.author == layers.sender.publicKeyHex)
    #expect(message.content == "hello")
  }

  @Test func refusesARumorWhoseAuthorIsNotTheSealSigner() throws {
    let impersonated = SecretKey.generate().publicKeyHex
    let wrap = try layers.wrap(seal: try layers.seal(layers.rumorJSON(author: impersonated)))
    #expect(refusal(wrap)?.code == .rumorAuthorMismatch)
  }

  @Test func refusesASealWithTags() throws {
    let seal = try layers.seal(layers.rumorJSON(), tags: [["p", layers.recipient.publicKeyHex]])
    #expect(refusal(try layers.wrap(seal: seal))?.code == .sealTags)
  }

  @Test func refusesASealOfAnotherKind() throws {
    let seal = try layers.seal(layers.rumorJSON(), kind: 1)
    #expect(refusal(try layers.wrap(seal: seal))?.code == .sealKind)
  }

  @Test func refusesATamperedSealSignature() throws {
    let seal = try LayerBuilder.tampered(try layers.seal(layers.rumorJSON()))
    #expect(refusal(try layers.wrap(seal: seal))?.code == .sealUnverified)
  }

  @Test func refusesATamperedWrapSignature() throws {
    let wrap = try LayerBuilder.tampered(try layers.wrap(seal: try layers.seal(layers.rumorJSON())))
    #expect(refusal(wrap)?.code == .wrapUnverified)
  }

  @Test func refusesAWrapForAnotherKey() throws {
    let other = SecretKey.generate()
    let wrap = try layers.wrap(
      String(
        decoding: try layers.seal(layers.rumorJSON(), to: other.publicKeyHex).jsonBytes(), as: UTF8.self),
      to: other.publicKeyHex)
    #expect(refusal(wrap)?.code == .wrapUnopened)
    #expect(refusal(wrap, key: other) == nil)
  }

  @Test func refusesASealEncryptedToAnotherKey() throws {
    let seal = try layers.seal(layers.rumorJSON(), to: SecretKey.generate().publicKeyHex)
    #expect(refusal(try layers.wrap(seal: seal))?.code == .sealUnopened)
  }

  @Test func refusesARumorWhoseIDDoesNotMatch() throws {
    let wrong = String(repeating: "ab", count: 32)
    let wrap = try layers.wrap(seal: try layers.seal(layers.rumorJSON(id: .some(wrong))))
    #expect(refusal(wrap)?.code == .rumorIDMismatch)
  }

  @Test func computesTheIDOfARumorWithout() throws {
    let wrap = try layers.wrap(seal: try layers.seal(layers.rumorJSON(id: .none)))
    let message = try DirectMessage(unwrapping: wrap, recipient: layers.recipient)
    let rumor = UnsignedEvent(
      pubkey: layers.sender.publicKeyHex, createdAt: layers.now - 60, kind: 14,
      tags: [["p", layers.recipient.publicKeyHex]], content: "hello")
    #expect(message.id == rumor.id)
  }

  @Test(arguments: [1, 4, 13, 1059])
  func refusesARumorThatIsNotAChatOrFileMessage(kind: Int) throws {
    let wrap = try layers.wrap(seal: try layers.seal(layers.rumorJSON(kind: kind)))
    #expect(refusal(wrap)?.code == .rumorKind)
  }

  @Test func refusesAnEventThatIsNotAGiftWrap() throws {
    let wrap = try layers.wrap(
      String(decoding: try layers.seal(layers.rumorJSON()).jsonBytes(), as: UTF8.self), kind: 4)
    #expect(refusal(wrap)?.code == .notAGiftWrap)
  }

  @Test func refusesOversizedContentBeforeVerifying() throws {
    let key = SecretKey.generate()
    let wrap = try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: layers.now, kind: 1059,
      tags: [["p", layers.recipient.publicKeyHex]],
      content: String(repeating: "A", count: NIP44.maxPayloadCharacters + 1)
    ).signed(with: key)
    #expect(refusal(wrap)?.code == .contentTooLong)
  }

  @Test(arguments: ["not json", "[1,2]", #"{"kind":13}"#])
  func refusesASealThatIsNotAnEvent(plaintext: String) throws {
    #expect(refusal(try layers.wrap(plaintext))?.code == .sealMalformed)
  }

  @Test(arguments: [
    "not json", #"{"pubkey":"x"}"#, #"{"tags":[[["deep"]]]}"#,
  ])
  func refusesARumorThatIsNotAnUnsignedEvent(plaintext: String) throws {
    let wrap = try layers.wrap(seal: try layers.seal(plaintext))
    #expect(refusal(wrap)?.code == .rumorMalformed)
  }
}
