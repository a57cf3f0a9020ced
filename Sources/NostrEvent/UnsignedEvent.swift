import NostrJSON

/// The fields of an event before it has an id and a signature.
///
/// Used to build events this process publishes (NIP-98 headers, tests, fixtures).
public struct UnsignedEvent: Sendable, Hashable {
  /// The author's x-only public key as 64 lowercase hex.
  public var pubkey: String
  /// Seconds since the Unix epoch.
  public var createdAt: Int64
  /// The event kind.
  public var kind: Int
  /// The tags.
  public var tags: [[String]]
  /// The content.
  public var content: String

  /// Creates the fields of an event, to be signed with `signed(with:)`.
  public init(pubkey: String, createdAt: Int64, kind: Int, tags: [[String]], content: String) {
    self.pubkey = pubkey
    self.createdAt = createdAt
    self.kind = kind
    self.tags = tags
    self.content = content
  }

  /// The event with its id (common escaping) and a BIP-340 signature made with `key` and fresh
  /// system randomness. Throws when `pubkey` is not the key's or a field is out of range.
  public func signed(with key: SecretKey) throws(EventError) -> Event {
    try signed(with: key, rule: .common)
  }

  /// As `signed(with:)`, with the id computed under `rule` (the literal rule exists only to
  /// produce compatibility test events).
  func signed(with key: SecretKey, rule: NostrStringEscaper.Rule) throws(EventError) -> Event {
    guard pubkey == key.publicKeyHex else {
      throw EventError.invalid("pubkey", "is not the public key of the signing key")
    }
    guard (0...Event.maxCreatedAt).contains(createdAt) else {
      throw EventError.invalid("created_at", "\(createdAt) is outside 0…\(Event.maxCreatedAt)")
    }
    guard (0...Event.maxKind).contains(kind) else {
      throw EventError.invalid("kind", "\(kind) is outside 0…\(Event.maxKind)")
    }
    guard tags.count <= Event.maxTags else {
      throw EventError.invalid("tags", "\(tags.count) tags is more than \(Event.maxTags)")
    }
    let id = CanonicalSerializer.id(
      pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content, rule: rule)
    guard let signature = key.sign(message: id) else {
      throw EventError.invalid("sig", "libsecp256k1 could not sign")
    }
    return Event(
      id: Hex.encode(id), pubkey: pubkey, createdAt: createdAt, kind: kind, tags: tags, content: content,
      sig: Hex.encode(signature))
  }
}
