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
    guard case .object(let object) = jsonValue else {
      throw EventError(
        code: .malformedJSON, message: "an event must be a JSON object, not \(jsonValue.typeName)")
    }
    var id: String?
    var pubkey: String?
    var createdAt: Int64?
    var kind: Int?
    var tags: [[String]]?
    var content: String?
    for member in object.members {
      switch member.key {
      case "id": id = try Event.hex(member.value, field: "id", length: 64)
      case "pubkey": pubkey = try Event.hex(member.value, field: "pubkey", length: 64)
      case "created_at":
        createdAt = try Event.integer(member.value, field: "created_at", range: 0...Event.maxCreatedAt)
      case "kind":
        kind = Int(try Event.integer(member.value, field: "kind", range: 0...Int64(Event.maxKind)))
      case "tags": tags = try Event.tags(member.value)
      case "content":
        guard case .string(let text) = member.value else {
          throw EventError.invalid("content", "expected a string, got \(member.value.typeName)")
        }
        content = text
      default: continue
      }
    }
    guard let pubkey else { throw EventError.invalid("pubkey", "missing") }
    guard let createdAt else { throw EventError.invalid("created_at", "missing") }
    guard let kind else { throw EventError.invalid("kind", "missing") }
    guard let tags else { throw EventError.invalid("tags", "missing") }
    guard let content else { throw EventError.invalid("content", "missing") }
    return (UnsignedEvent(pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content), id)
  }

  /// The rumor as a JSON object: `id` (computed) first, then the five fields, no `sig`.
  package var rumorJSONValue: JSONValue {
    .object(
      JSONObject([
        "id": .string(id),
        "pubkey": .string(pubkey),
        "created_at": .integer(createdAt),
        "kind": .integer(Int64(kind)),
        "tags": .array(tags.map { .array($0.map { .string($0) }) }),
        "content": .string(content),
      ]))
  }
}
