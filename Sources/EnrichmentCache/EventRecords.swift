import NostrEvent
import NostrJSON

/// Turns verified events into cache records: kind 0 → `Profile`, kind 39000 → `ChannelMetadata`,
/// kind 39002 → `Roster`.
///
/// `check` runs the cheap tests first (kind, signer) and the signature last; the `record`
/// functions assume a checked event and validate its fields.
enum EventRecords {
  /// The profile kind.
  static let profileKind = 0
  /// The channel metadata kind (signed by the relay key, `d` = channel id).
  static let channelMetadataKind = 39000
  /// The channel membership kind (signed by the relay key, `d` = channel id, `p` = members).
  static let membershipKind = 39002
  /// The largest kind 0 content parsed, in bytes (the resolver's profile response cap).
  static let maxProfileContentBytes = 256 * 1024

  /// Throws `wrongKind`, `wrongSigner` or `invalidEvent` unless the event is of `kind`, signed by
  /// `signer` (when given) and verifies.
  static func check(_ event: Event, kind: Int, signer: String?) throws(CacheError) {
    guard event.kind == kind else {
      throw CacheError(code: .wrongKind, field: "kind", message: "expected kind \(kind), got \(event.kind)")
    }
    try checkSigner(event, signer)
    guard event.verify().isValid else {
      throw CacheError(
        code: .invalidEvent, field: "sig", message: "the event's id or signature does not verify")
    }
  }

  /// Throws `wrongSigner` unless `signer` is nil or the event's author.
  static func checkSigner(_ event: Event, _ signer: String?) throws(CacheError) {
    if let signer, event.pubkey != signer {
      throw CacheError(
        code: .wrongSigner, field: "pubkey", message: "the event is not signed by the expected key")
    }
  }

  /// The profile of a checked kind 0: display name by the `display_name`-else-`name` rule,
  /// `picture` when it is an http(s) URL of at most `maxPictureURLBytes`.
  static func profile(_ event: Event) throws(CacheError) -> Profile {
    guard event.content.utf8.count <= maxProfileContentBytes else {
      throw .invalid("content", "longer than \(maxProfileContentBytes) bytes")
    }
    let object: JSONObject
    do {
      guard let parsed = try JSONReader().read(event.content).objectValue else {
        throw CacheError.invalid("content", "not a JSON object")
      }
      object = parsed
    } catch let error as CacheError {
      throw error
    } catch {
      throw .invalid("content", "not JSON: \(error)")
    }
    let displayName = DisplayName.fromProfile(
      displayName: object["display_name"]?.stringValue, name: object["name"]?.stringValue)
    return Profile(
      pubkey: event.pubkey, displayName: displayName, pictureURL: pictureURL(object["picture"]?.stringValue),
      eventID: event.id, createdAt: event.createdAt)
  }

  /// The metadata of a checked kind 39000.
  static func channelMetadata(_ event: Event) throws(CacheError) -> ChannelMetadata {
    let channelID = try channelID(event)
    let type = event.tagValues("t").lazy.compactMap(ChannelType.init(rawValue:)).first
    return ChannelMetadata(
      channelID: channelID, name: event.tagValues("name").first.flatMap(DisplayName.sanitize), type: type,
      signer: event.pubkey, eventID: event.id, createdAt: event.createdAt)
  }

  /// The roster of a checked kind 39002; one malformed `p` value rejects it.
  static func roster(_ event: Event) throws(CacheError) -> Roster {
    try Roster(
      channelID: try channelID(event), memberPubkeys: event.tagValues("p"), signer: event.pubkey,
      eventID: event.id, createdAt: event.createdAt)
  }

  private static func channelID(_ event: Event) throws(CacheError) -> String {
    guard let channelID = event.tagValues("d").first else { throw .invalid("tags.d", "missing channel id") }
    try EnrichmentCache.checkChannelID(channelID)
    return channelID
  }

  private static func pictureURL(_ raw: String?) -> String? {
    guard let raw else { return nil }
    let url = raw.trimmingWhitespace()
    guard !url.isEmpty, url.utf8.count <= EnrichmentCache.maxPictureURLBytes else { return nil }
    let lower = url.prefix(8).lowercased()
    guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return nil }
    guard !url.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }) else {
      return nil
    }
    return url
  }
}

extension String {
  fileprivate func trimmingWhitespace() -> String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
      let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
    else { return "" }
    return String(scalars[first...last])
  }
}
