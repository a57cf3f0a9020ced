import NIP44
import NostrEvent
import NostrJSON

/// The NIP-59 half of opening a gift wrap, every check of `GiftWrapError`'s list in its
/// order: wrap (kind, size, id and signature), NIP-44 with (recipient, wrap pubkey), seal
/// (parse, kind 13, no tags, id and signature), NIP-44 with (recipient, seal pubkey), rumor
/// (parse, kind, author = seal author, `id` if present).
///
/// `rumorKinds` nil accepts any rumor kind (the NIP-59 example's rumor is kind 1); the direct
/// message type passes 14 and 15.
enum GiftWrapOpening {
  /// The kind of a gift wrap.
  static let wrapKind = EventKind.giftWrap
  /// The kind of a seal.
  static let sealKind = EventKind.seal
  /// The longest wrap content read, in characters: NIP-44's largest payload.
  static let maxContentCharacters = NIP44.maxPayloadCharacters
  /// The deepest JSON a seal or a rumor may be: an object, its tags, one tag.
  static let maxDepth = 3

  /// What opening found: the verified seal, the rumor and its id.
  struct Opened {
    /// The seal, verified.
    var seal: Event
    /// The rumor, its author the seal's.
    var rumor: UnsignedEvent
    /// The rumor's id: as given when present (and checked), else computed.
    var rumorID: String
  }

  static func open(_ wrap: Event, recipient: SecretKey, rumorKinds: Set<Int>?) throws(GiftWrapError) -> Opened
  {
    guard wrap.kind == wrapKind else {
      throw GiftWrapError(code: .notAGiftWrap, field: "kind", message: "kind \(wrap.kind) is not \(wrapKind)")
    }
    guard wrap.content.utf8.count <= maxContentCharacters else {
      throw GiftWrapError(
        code: .contentTooLong, field: "content",
        message: "the wrap's content is over \(maxContentCharacters) characters")
    }
    guard wrap.verify().isValid else {
      throw GiftWrapError(
        code: .wrapUnverified, field: "wrap", message: "the wrap's id or signature does not verify")
    }
    let sealText = try decrypt(wrap.content, recipient: recipient, author: wrap.pubkey, code: .wrapUnopened)
    let seal: Event
    do throws(EventError) {
      seal = try Event(jsonValue: try json(sealText))
    } catch {
      throw GiftWrapError(
        code: .sealMalformed, field: "seal", message: "the seal is not an event: \(error.message)")
    }
    guard seal.kind == sealKind else {
      throw GiftWrapError(
        code: .sealKind, field: "seal.kind", message: "the seal is kind \(seal.kind), not \(sealKind)")
    }
    guard seal.tags.isEmpty else {
      throw GiftWrapError(
        code: .sealTags, field: "seal.tags", message: "the seal has \(seal.tags.count) tags")
    }
    guard seal.verify().isValid else {
      throw GiftWrapError(
        code: .sealUnverified, field: "seal", message: "the seal's id or signature does not verify")
    }
    let rumorText = try decrypt(seal.content, recipient: recipient, author: seal.pubkey, code: .sealUnopened)
    let rumor: UnsignedEvent
    let givenID: String?
    do throws(EventError) {
      (rumor, givenID) = try UnsignedEvent.rumor(jsonValue: try json(rumorText))
    } catch {
      throw GiftWrapError(
        code: .rumorMalformed, field: "rumor", message: "the rumor is not an unsigned event: \(error.message)"
      )
    }
    if let rumorKinds, !rumorKinds.contains(rumor.kind) {
      throw GiftWrapError(
        code: .rumorKind, field: "rumor.kind",
        message:
          "the rumor is kind \(rumor.kind), not \(rumorKinds.sorted().map(String.init).joined(separator: " or "))"
      )
    }
    guard rumor.pubkey == seal.pubkey else {
      throw GiftWrapError(
        code: .rumorAuthorMismatch, field: "rumor.pubkey",
        message: "the rumor's author is not the seal's signer: an impersonation")
    }
    if let givenID, !rumor.hasID(givenID) {
      throw GiftWrapError(
        code: .rumorIDMismatch, field: "rumor.id", message: "the rumor's id is not the hash of its fields")
    }
    return Opened(seal: seal, rumor: rumor, rumorID: givenID ?? rumor.id)
  }

  private static func decrypt(
    _ payload: String, recipient: SecretKey, author: String, code: ErrorCode<GiftWrapErrorDomain>
  ) throws(GiftWrapError) -> String {
    do throws(NIP44Error) {
      let key = try NIP44.ConversationKey(secretKey: recipient, publicKey: author)
      return try NIP44.decrypt(payload, conversationKey: key)
    } catch {
      let layer = code == .wrapUnopened ? "wrap" : "seal"
      throw GiftWrapError(
        code: code, field: layer, message: "NIP-44 could not open the \(layer): \(error.code.rawValue)")
    }
  }

  /// Reads a decrypted layer as JSON within the layer's bounds (depth 3, 65 535 bytes); a
  /// failure names the reader's code only, never a member name from the plaintext.
  private static func json(_ text: String) throws(EventError) -> JSONValue {
    do {
      return try JSONReader(maxDepth: maxDepth, maxBytes: NIP44.maxPlaintextBytes).read(text)
    } catch {
      throw EventError(code: .malformedJSON, message: "malformed JSON (\(error.code.rawValue))")
    }
  }
}
