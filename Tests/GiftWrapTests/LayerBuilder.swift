import NIP44
import NostrEvent
import NostrJSON

/// Builds gift wrap layers by hand from our primitives (NIP-44, event signing), so a test can
/// break exactly one rule of one layer.
struct LayerBuilder {
  let sender = SecretKey.generate()
  let recipient = SecretKey.generate()
  let now: Int64 = 1_767_225_600

  /// A rumor's JSON: the given fields, `id` computed unless `id` says otherwise (nil omits it).
  func rumorJSON(
    author: String? = nil, kind: Int = 14, tags: [[String]]? = nil, content: String = "hello",
    id: String?? = .some(nil)
  ) -> String {
    let rumor = UnsignedEvent(
      pubkey: author ?? sender.publicKeyHex, createdAt: now - 60, kind: kind,
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
    return JSONWriter.string(.object(JSONObject(pairs.map { JSONMember(key: $0.0, value: $0.1) })))
  }

  /// A seal of `plaintext` signed by `signer` (default: the sender), encrypted to `to`.
  func seal(
    _ plaintext: String, signer: SecretKey? = nil, to: String? = nil, kind: Int = 13, tags: [[String]] = []
  ) throws -> Event {
    let signer = signer ?? sender
    let key = try NIP44.ConversationKey(secretKey: signer, publicKey: to ?? recipient.publicKeyHex)
    return try UnsignedEvent(
      pubkey: signer.publicKeyHex, createdAt: now - 3600, kind: kind, tags: tags,
      content: try NIP44.encrypt(plaintext, conversationKey: key)
    ).signed(with: signer)
  }

  /// A wrap of `plaintext` by a fresh one-time key, encrypted to `to` (default: the recipient).
  func wrap(_ plaintext: String, to: String? = nil, kind: Int = 1059) throws -> Event {
    let oneTime = SecretKey.generate()
    let target = to ?? recipient.publicKeyHex
    let key = try NIP44.ConversationKey(secretKey: oneTime, publicKey: target)
    return try UnsignedEvent(
      pubkey: oneTime.publicKeyHex, createdAt: now - 7200, kind: kind, tags: [["p", target]],
      content: try NIP44.encrypt(plaintext, conversationKey: key)
    ).signed(with: oneTime)
  }

  /// A wrap of the seal event's JSON.
  func wrap(seal: Event) throws -> Event {
    try wrap(String(decoding: seal.jsonBytes(), as: UTF8.self))
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
