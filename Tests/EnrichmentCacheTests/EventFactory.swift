import Foundation
import NostrEvent
import NostrJSON

/// Signs real test events with libsecp256k1.
struct EventFactory {
  let key: SecretKey
  var pubkey: String { key.publicKeyHex }

  init(_ key: SecretKey = SecretKey.generate()) {
    self.key = key
  }

  func event(kind: Int, tags: [[String]] = [], content: String = "", createdAt: Int64 = 100) throws -> Event {
    try UnsignedEvent(pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content).signed(
      with: key)
  }

  /// A kind 0 with the given content members.
  func profile(_ members: KeyValuePairs<String, String>, createdAt: Int64 = 100) throws -> Event {
    let object = JSONObject(members.map { JSONMember(key: $0.key, value: .string($0.value)) })
    return try event(kind: 0, content: JSONWriter.string(.object(object)), createdAt: createdAt)
  }

  /// A kind 39000 for `channel`.
  func metadata(_ channel: String, name: String, type: String = "stream", createdAt: Int64 = 100) throws
    -> Event
  {
    try event(kind: 39000, tags: [["d", channel], ["name", name], ["t", type]], createdAt: createdAt)
  }

  /// A kind 39002 for `channel` listing `members`.
  func membership(_ channel: String, members: [String], createdAt: Int64 = 100) throws -> Event {
    try event(kind: 39002, tags: [["d", channel]] + members.map { ["p", $0] }, createdAt: createdAt)
  }
}

/// The event with one field changed after signing (its id no longer matches).
func tampered(_ event: Event) throws -> Event {
  guard case .object(var object) = event.jsonValue else { throw CocoaError(.coderInvalidValue) }
  object.members = object.members.map { member in
    member.key == "content" ? JSONMember(key: "content", value: .string(event.content + " ")) : member
  }
  return try Event(jsonValue: .object(object))
}
