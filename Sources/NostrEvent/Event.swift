import NostrJSON

/// A NIP-01 event, parsed and field-validated but not yet verified.
///
/// Parsing checks shape only (hex fields, integer ranges, tag structure); call `verify()` to
/// check that the id is the hash of the content and that the signature is the author's.
public struct Event: Sendable, Hashable {
  /// The most tags one event may carry: far above real events, low enough to bound the work.
  package static let maxTags = 100_000
  /// The largest `created_at` accepted: 2^53 − 1, the largest integer every JSON reader keeps exact.
  package static let maxCreatedAt: Int64 = (1 << 53) - 1
  /// The largest `kind` accepted.
  package static let maxKind = 65_535

  /// The event id: 64 lowercase hex characters.
  public let id: String
  /// The author's x-only public key: 64 lowercase hex characters.
  public let pubkey: String
  /// Seconds since the Unix epoch, 0 … 2^53 − 1.
  public let createdAt: Int64
  /// The event kind, 0 … 65535.
  public let kind: Int
  /// The tags, each an array of strings (an empty tag is kept).
  public let tags: [[String]]
  /// The content, exactly as decoded.
  public let content: String
  /// The BIP-340 signature: 128 lowercase hex characters.
  public let sig: String

  init(
    id: String, pubkey: String, createdAt: Int64, kind: Int, tags: [[String]], content: String, sig: String
  ) {
    self.id = id
    self.pubkey = pubkey
    self.createdAt = createdAt
    self.kind = kind
    self.tags = tags
    self.content = content
    self.sig = sig
  }

  /// Parses an event from JSON bytes, as a relay or a server sends it. Nothing is verified:
  /// call `verify()` before trusting its id, author or content.
  public init(json: some Sequence<UInt8>) throws(EventError) {
    let parsed = json.withContiguousStorageIfAvailable { buffer in
      Result { () throws(EventError) in try Event(jsonBuffer: UnsafeRawBufferPointer(buffer)) }
    }
    if let parsed {
      self = try parsed.get()
    } else {
      self = try Array(json).withUnsafeBytes { buffer in
        Result { () throws(EventError) in try Event(jsonBuffer: buffer) }
      }.get()
    }
  }

  /// Parses an event from JSON bytes (no verification); the non-generic path for arrays.
  package init(json: [UInt8]) throws(EventError) {
    self = try json.withUnsafeBytes { buffer in
      Result { () throws(EventError) in try Event(jsonBuffer: buffer) }
    }.get()
  }

  /// Parses an event from the JSON bytes in `jsonBuffer` (no verification).
  package init(jsonBuffer: UnsafeRawBufferPointer) throws(EventError) {
    // The common shape is read straight into the event; anything else (including every error)
    // goes through the general reader, which gives the exact error.
    if let event = EventFastReader.read(jsonBuffer) {
      self = event
      return
    }
    let value: JSONValue
    do {
      value = try JSONReader().read(buffer: jsonBuffer)
    } catch {
      throw Event.malformed(error)
    }
    try self.init(jsonValue: value)
  }

  /// Parses an event from a JSON string; nothing is verified (call `verify()`).
  package init(json: String) throws(EventError) {
    var json = json
    self = try json.withUTF8 { buffer in
      Result { () throws(EventError) in try Event(jsonBuffer: UnsafeRawBufferPointer(buffer)) }
    }.get()
  }

  /// Takes an event from an already-read JSON value, such as one element of an array a server
  /// returned; nothing is verified (call `verify()`).
  public init(jsonValue: JSONValue) throws(EventError) {
    let members = try EventMembers(jsonValue, readsSignature: true)
    let id = try EventMembers.required(members.id, "id")
    let pubkey = try EventMembers.required(members.pubkey, "pubkey")
    let createdAt = try EventMembers.required(members.createdAt, "created_at")
    let kind = try EventMembers.required(members.kind, "kind")
    let tags = try EventMembers.required(members.tags, "tags")
    let content = try EventMembers.required(members.content, "content")
    let sig = try EventMembers.required(members.sig, "sig")
    self.init(
      id: id, pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, sig: sig)
  }

  /// The event as a JSON object with the seven NIP-01 members.
  public var jsonValue: JSONValue {
    EventMembers.object(
      id: id, pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, sig: sig)
  }

  /// The compact JSON of the event (common escaping), as sent to relays.
  public func jsonBytes() -> [UInt8] {
    JSONWriter.bytes(jsonValue)
  }

  /// The second element of every tag whose first element is `name`, in tag order.
  public func tagValues(_ name: String) -> [String] {
    tags.compactMap { $0.count >= 2 && $0[0] == name ? $0[1] : nil }
  }

  // MARK: Field readers

  /// The `malformed_json` error for a document the JSON reader refused, its message naming where.
  package static func malformed(_ error: JSONError) -> EventError {
    EventError(
      code: .malformedJSON,
      message:
        "malformed JSON: \(error.message)\(error.field.map { " at \($0)" } ?? "") (byte \(error.offset))")
  }

  static func hex(_ value: JSONValue, field: String, length: Int) throws(EventError) -> String {
    guard case .string(let text) = value else {
      throw EventError.invalid(field, "expected a string, got \(value.typeName)")
    }
    guard Hex.isLowercaseHex(text, length: length) else {
      throw EventError.invalid(field, "expected \(length) lowercase hex characters")
    }
    return text
  }

  static func integer(
    _ value: JSONValue, field: String, range: ClosedRange<Int64>
  ) throws(EventError) -> Int64 {
    guard case .integer(let number) = value else {
      throw EventError.invalid(field, "expected a JSON integer, got \(value.typeName)")
    }
    guard range.contains(number) else {
      throw EventError.invalid(field, "\(number) is outside \(range.lowerBound)…\(range.upperBound)")
    }
    return number
  }

  static func tags(_ value: JSONValue) throws(EventError) -> [[String]] {
    guard case .array(let elements) = value else {
      throw EventError.invalid("tags", "expected an array, got \(value.typeName)")
    }
    guard elements.count <= maxTags else {
      throw EventError.invalid("tags", "\(elements.count) tags is more than \(maxTags)")
    }
    var tags: [[String]] = []
    tags.reserveCapacity(elements.count)
    for (index, element) in elements.enumerated() {
      guard case .array(let items) = element else {
        throw EventError.invalid("tags", "tags[\(index)] is \(element.typeName), not an array")
      }
      var tag: [String] = []
      tag.reserveCapacity(items.count)
      for (position, item) in items.enumerated() {
        guard case .string(let text) = item else {
          throw EventError.invalid("tags", "tags[\(index)][\(position)] is \(item.typeName), not a string")
        }
        tag.append(text)
      }
      tags.append(tag)
    }
    return tags
  }
}
