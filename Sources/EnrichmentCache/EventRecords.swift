import NostrEvent
import NostrJSON

/// Turns verified events into cache records: kind 39000 → `ChannelMetadata`, kind 39002 →
/// `Roster` (kind 0 → `Profile` is `Profile.init(event:)`).
///
/// `check` runs the cheap tests first (kind, signer) and the signature last; the `record`
/// functions assume a checked event and validate its fields. The one owner of these rules: the
/// app's importer, the cache's store API and the notification extension (for a record it shows
/// before the write lands) all go through it, so the same event gives the same record whoever
/// stored it.
package enum EventRecords {
  /// The channel metadata kind (signed by the relay key, `d` = channel id).
  package static let channelMetadataKind = EventKind.groupMetadata
  /// The channel membership kind (signed by the relay key, `d` = channel id, `p` = members).
  package static let membershipKind = EventKind.groupMembers

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

  /// The metadata of a checked kind 39000: the sanitised `name`, the first *valid* `t` tag.
  package static func channelMetadata(_ event: Event) throws(CacheError) -> ChannelMetadata {
    let channelID = try channelID(event)
    let type = event.tagValues("t").lazy.compactMap(ChannelType.init(rawValue:)).first
    return ChannelMetadata(
      channelID: channelID, name: event.tagValues("name").first.flatMap(DisplayName.sanitize), type: type,
      signer: event.pubkey, eventID: event.id, createdAt: event.createdAt)
  }

  /// The roster of a checked kind 39002; one malformed `p` value rejects it.
  package static func roster(_ event: Event) throws(CacheError) -> Roster {
    try Roster(
      channelID: try channelID(event), memberPubkeys: event.tagValues("p"), signer: event.pubkey,
      eventID: event.id, createdAt: event.createdAt)
  }

  /// The roster of a verified roster reading (`EventFastReader.readRosters`, which never builds
  /// the tags): the same record `roster(_:)` gives for the same event. Throws `wrongKind` for
  /// another kind and, as for an event, on a missing or invalid `d` or a malformed `p` value.
  package static func roster(_ reading: RosterReading) throws(CacheError) -> Roster {
    guard reading.kind == membershipKind else {
      throw CacheError(code: .wrongKind, field: "kind", message: "expected kind \(membershipKind)")
    }
    guard let channelID = reading.channelID else { throw .invalid("tags.d", "missing channel id") }
    try EnrichmentCache.checkChannelID(channelID)
    guard !reading.hasMalformedKey else { throw .invalid("tags.p", "member is not 64 lowercase hex") }
    return Roster(
      channelID: channelID, packedMembers: reading.keptKeys, count: reading.distinctCount,
      signer: reading.pubkey,
      eventID: reading.id, createdAt: reading.createdAt)
  }

  private static func channelID(_ event: Event) throws(CacheError) -> String {
    guard let channelID = event.tagValues("d").first else { throw .invalid("tags.d", "missing channel id") }
    try EnrichmentCache.checkChannelID(channelID)
    return channelID
  }
}
