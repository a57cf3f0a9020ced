import NostrJSON

/// The NIP-01 members of an event object, each read and checked once: `Event(jsonValue:)` and a
/// NIP-59 rumor (`UnsignedEvent.rumor(jsonValue:)`) read them through this one reader, so the two
/// never disagree on a member's rules. Unknown members are skipped; `sig` is read only when asked
/// for (a rumor ignores one).
struct EventMembers {
  var id: String?
  var pubkey: String?
  var createdAt: Int64?
  var kind: Int?
  var tags: [[String]]?
  var content: String?
  var sig: String?

  /// The event object with `id` first, then the five signed fields, then `sig` when given: the
  /// one writer of an event's members, for `Event.jsonValue` and a rumor (`rumorJSONValue`).
  static func object(
    id: String, pubkey: String, createdAt: Int64, kind: Int, tags: [[String]], content: String, sig: String?
  ) -> JSONValue {
    var members: [JSONMember] = [
      JSONMember(key: "id", value: .string(id)),
      JSONMember(key: "pubkey", value: .string(pubkey)),
      JSONMember(key: "created_at", value: .integer(createdAt)),
      JSONMember(key: "kind", value: .integer(Int64(kind))),
      JSONMember(key: "tags", value: .array(tags.map { .array($0.map { .string($0) }) })),
      JSONMember(key: "content", value: .string(content)),
    ]
    if let sig { members.append(JSONMember(key: "sig", value: .string(sig))) }
    return .object(JSONObject(members))
  }

  init(_ value: JSONValue, readsSignature: Bool) throws(EventError) {
    guard case .object(let object) = value else {
      throw EventError(code: .malformedJSON, message: "an event must be a JSON object, not \(value.typeName)")
    }
    for member in object.members {
      switch member.key {
      case "id": id = try Event.hex(member.value, field: "id", length: 64)
      case "pubkey": pubkey = try Event.hex(member.value, field: "pubkey", length: 64)
      case "sig" where readsSignature: sig = try Event.hex(member.value, field: "sig", length: 128)
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
  }

  /// `value`, or a `missing` error naming `field`.
  static func required<T>(_ value: T?, _ field: String) throws(EventError) -> T {
    guard let value else { throw EventError.invalid(field, "missing") }
    return value
  }
}
