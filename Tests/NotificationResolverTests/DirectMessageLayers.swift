import NIP44
import NostrEvent
import NostrJSON

/// Builds NIP-17 gift wraps layer by layer from the primitives (NIP-44, event signing), not with
/// `GiftWrapper`, so a test can break exactly one rule of one layer and the resolver meets wraps
/// its own sender did not make.
struct DirectMessageLayers {
  let sender: SecretKey
  let recipient: SecretKey

  /// A rumor's JSON: the given fields, `id` computed unless `id` says otherwise (nil omits it).
  func rumor(
    author: String? = nil, kind: Int = 14, tags: [[String]]? = nil, content: String, createdAt: Int64,
    id: String?? = .some(nil)
  ) -> (json: String, id: String) {
    let rumor = UnsignedEvent(
      pubkey: author ?? sender.publicKeyHex, createdAt: createdAt, kind: kind,
      tags: tags ?? [["p", recipient.publicKeyHex]], content: content)
    var pairs: [(String, JSONValue)] = []
    switch id {
    case .none: break
    case .some(.none): pairs.append(("id", .string(rumor.id)))
    case .some(.some(let given)): pairs.append(("id", .string(given)))
    }
    pairs += [
      ("pubkey", .string(rumor.pubkey)), ("created_at", .integer(rumor.createdAt)),
      ("kind", .integer(Int64(rumor.kind))),
      ("tags", .array(rumor.tags.map { .array($0.map { .string($0) }) })),
      ("content", .string(rumor.content)),
    ]
    let json = JSONWriter.string(.object(JSONObject(pairs.map { JSONMember(key: $0.0, value: $0.1) })))
    return (json, rumor.id)
  }

  /// A kind 13 seal of `plaintext` signed by `signer` (default: the sender), for the recipient.
  func seal(_ plaintext: String, signer: SecretKey? = nil, tags: [[String]] = [], createdAt: Int64) throws
    -> Event
  {
    let signer = signer ?? sender
    let key = try NIP44.ConversationKey(secretKey: signer, publicKey: recipient.publicKeyHex)
    return try UnsignedEvent(
      pubkey: signer.publicKeyHex, createdAt: createdAt, kind: 13, tags: tags,
      content: try NIP44.encrypt(plaintext, conversationKey: key)
    ).signed(with: signer)
  }

  /// A kind 1059 wrap of `seal` by a fresh one-time key, `p`-tagged to the recipient and encrypted
  /// to `encryptTo` (default: the recipient).
  func wrap(_ seal: Event, encryptTo: String? = nil, createdAt: Int64) throws -> Event {
    let oneTime = SecretKey.generate()
    let key = try NIP44.ConversationKey(secretKey: oneTime, publicKey: encryptTo ?? recipient.publicKeyHex)
    return try UnsignedEvent(
      pubkey: oneTime.publicKeyHex, createdAt: createdAt, kind: 1059, tags: [["p", recipient.publicKeyHex]],
      content: try NIP44.encrypt(String(decoding: seal.jsonBytes(), as: UTF8.self), conversationKey: key)
    ).signed(with: oneTime)
  }

  /// A valid direct message `text` written at `writtenAt`, wrapped at `wrappedAt`; and its rumor id.
  func message(_ text: String, writtenAt: Int64, wrappedAt: Int64, tags: [[String]]? = nil) throws
    -> (wrap: Event, rumorID: String)
  {
    let rumor = rumor(tags: tags, content: text, createdAt: writtenAt)
    let seal = try seal(rumor.json, createdAt: wrappedAt)
    return (try wrap(seal, createdAt: wrappedAt), rumor.id)
  }

  /// `event` with its signature's first hex digit changed (the id still matches).
  static func tampered(_ event: Event) throws -> Event {
    let first = event.sig.first == "0" ? "1" : "0"
    return try Event(
      jsonValue: .object(
        JSONObject([
          "id": .string(event.id), "pubkey": .string(event.pubkey), "created_at": .integer(event.createdAt),
          "kind": .integer(Int64(event.kind)),
          "tags": .array(event.tags.map { .array($0.map { .string($0) }) }),
          "content": .string(event.content), "sig": .string(first + event.sig.dropFirst()),
        ])))
  }
}
