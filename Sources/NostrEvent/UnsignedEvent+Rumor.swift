import NostrJSON

extension UnsignedEvent {
  /// The id the fields hash to (common escaping), as 64 lowercase hex: a NIP-59 rumor's id.
  package var id: String {
    Hex.encode(
      CanonicalSerializer.id(
        pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, rule: .common))
  }

  /// Whether `id` is the hash of these fields under either escaping rule (the literal NIP-01
  /// form only when a string needs it), as `Event.verify()` checks an id.
  package func hasID(_ id: String) -> Bool {
    if self.id == id { return true }
    guard Event.needsLiteralForm(tags: tags, content: content) else { return false }
    let literal = CanonicalSerializer.id(
      pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, rule: .literal)
    return Hex.encode(literal) == id
  }

  /// Reads an unsigned event (a NIP-59 rumor) from a JSON object with the field rules of
  /// `Event(jsonValue:)`: `pubkey`, `created_at`, `kind`, `tags` and `content` required, `id`
  /// optional (64 lowercase hex when present, returned as given, not checked here), `sig` and
  /// unknown members ignored.
  package static func rumor(jsonValue: JSONValue) throws(EventError) -> (event: UnsignedEvent, id: String?) {
    let members = try EventMembers(jsonValue, readsSignature: false)
    let pubkey = try EventMembers.required(members.pubkey, "pubkey")
    let createdAt = try EventMembers.required(members.createdAt, "created_at")
    let kind = try EventMembers.required(members.kind, "kind")
    let tags = try EventMembers.required(members.tags, "tags")
    let content = try EventMembers.required(members.content, "content")
    return (
      UnsignedEvent(pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content),
      members.id
    )
  }

  /// The rumor as a JSON object: `id` (computed) first, then the five fields, no `sig`.
  package var rumorJSONValue: JSONValue {
    EventMembers.object(
      id: id, pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, sig: nil)
  }
}
