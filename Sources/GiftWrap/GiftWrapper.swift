import NIP44
import NostrEvent
import NostrJSON

/// Seals and wraps NIP-17 direct messages from one sender (NIP-59): the rumor, unsigned, is
/// encrypted into a kind 13 seal the sender signs, with no tags and `created_at` set back a random
/// 0–2 days; the seal is encrypted into a kind 1059 wrap signed by a fresh one-time key, with one
/// `p` tag for the recipient and `created_at` set back by a `WrapBackdate`.
///
/// Wrap once per recipient, and once for the sender's own other devices if wanted: every wrap
/// of one rumor carries the same rumor id. The one-time key is discarded (wiped) after signing;
/// publish the wrap authenticated as that key or not at all, never as the sender.
public struct GiftWrapper: Sendable {
  /// The sender: signs the seals and authors the rumors.
  let sender: SecretKey

  /// A wrapper for messages by `sender`.
  public init(sender: SecretKey) {
    self.sender = sender
  }

  /// The gift wrap of `rumor` for `recipient` (64 lowercase hex), dated from `now` (Unix
  /// seconds).
  ///
  /// Throws `invalid_rumor` when the rumor's pubkey is not the sender's or it is not kind 14 or
  /// 15, `invalid_recipient` when the recipient is not a public key, `message_too_long` when a
  /// layer is over NIP-44's 65 535 bytes.
  public func wrap(
    _ rumor: UnsignedEvent, for recipient: String, now: Int64, backdate: WrapBackdate = .random
  ) throws(GiftWrapError) -> Event {
    try wrap(rumor, for: recipient, now: now, backdate: backdate, oneTimeKey: SecretKey.generate())
  }

  /// `wrap(_:for:now:backdate:)` signed by a given one-time key, for a publisher that answers
  /// the relay's NIP-42 challenge with it (`nostr-push dm send`); the key must be fresh and used
  /// for this wrap alone.
  package func wrap(
    _ rumor: UnsignedEvent, for recipient: String, now: Int64, backdate: WrapBackdate, oneTimeKey: SecretKey
  ) throws(GiftWrapError) -> Event {
    guard rumor.pubkey == sender.publicKeyHex else {
      throw GiftWrapError(
        code: .invalidRumor, field: "rumor.pubkey", message: "the rumor's pubkey is not the sender's")
    }
    guard rumor.kind == DirectMessage.chatKind || rumor.kind == DirectMessage.fileKind else {
      throw GiftWrapError(
        code: .invalidRumor, field: "rumor.kind",
        message: "the rumor is kind \(rumor.kind), not \(EventKind.directMessage) or \(EventKind.fileMessage)"
      )
    }
    guard Hex.isLowercaseHex(recipient, length: 64) else {
      throw GiftWrapError(
        code: .invalidRecipient, field: "recipient", message: "the recipient is not 64 lowercase hex")
    }
    let rumorJSON = JSONWriter.string(rumor.rumorJSONValue)
    let sealContent = try encrypt(rumorJSON, from: sender, to: recipient, layer: "rumor")
    let seal = try sign(
      UnsignedEvent(
        pubkey: sender.publicKeyHex, createdAt: max(0, now - WrapBackdate.randomSeconds()),
        kind: GiftWrapOpening.sealKind, tags: [], content: sealContent),
      with: sender)
    let wrapContent = try encrypt(
      String(decoding: seal.jsonBytes(), as: UTF8.self), from: oneTimeKey, to: recipient, layer: "seal")
    return try sign(
      UnsignedEvent(
        pubkey: oneTimeKey.publicKeyHex, createdAt: max(0, now - backdate.seconds()),
        kind: GiftWrapOpening.wrapKind, tags: [["p", recipient]], content: wrapContent),
      with: oneTimeKey)
  }

  /// A kind 14 chat rumor by the sender: one `p` tag per recipient, in order, then a `subject`
  /// tag when `subject` is given; `content` is the text.
  public func chatRumor(to recipients: [String], text: String, subject: String? = nil, createdAt: Int64)
    -> UnsignedEvent
  {
    var tags = recipients.map { ["p", $0] }
    if let subject { tags.append(["subject", subject]) }
    return UnsignedEvent(
      pubkey: sender.publicKeyHex, createdAt: createdAt, kind: DirectMessage.chatKind, tags: tags,
      content: text)
  }

  private func encrypt(
    _ plaintext: String, from key: SecretKey, to recipient: String, layer: String
  ) throws(GiftWrapError) -> String {
    let conversationKey: NIP44.ConversationKey
    do throws(NIP44Error) {
      conversationKey = try NIP44.ConversationKey(secretKey: key, publicKey: recipient)
    } catch {
      throw GiftWrapError(
        code: .invalidRecipient, field: "recipient",
        message: "the recipient is not a public key: \(error.message)")
    }
    do throws(NIP44Error) {
      return try NIP44.encrypt(plaintext, conversationKey: conversationKey)
    } catch {
      throw GiftWrapError(
        code: .messageTooLong, field: layer,
        message:
          "the \(layer) is \(plaintext.utf8.count) bytes; NIP-44 encrypts at most \(NIP44.maxPlaintextBytes)")
    }
  }

  private func sign(_ event: UnsignedEvent, with key: SecretKey) throws(GiftWrapError) -> Event {
    do throws(EventError) {
      return try event.signed(with: key)
    } catch {
      throw GiftWrapError(code: .invalidRumor, field: error.field, message: error.message)
    }
  }
}
