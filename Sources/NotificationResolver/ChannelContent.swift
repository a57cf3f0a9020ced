import EnrichmentCache
import NostrEvent
import NostrJSON

/// Channel metadata and membership read from verified relay-signed events; used when the
/// resolver runs without a cache.
enum ChannelContent {
  /// The name (`name` tag) and type (`t` tag) of a kind 39000 event.
  static func channel(event: Event) -> ChannelSnapshot? {
    guard event.kind == 39000 else { return nil }
    let name = event.tagValues("name").first.flatMap(DisplayName.sanitize)
    return ChannelSnapshot(name: name, type: event.tagValues("t").first, signer: event.pubkey, isFresh: true)
  }

  /// The roster summary of a kind 39002 event for a message from `sender`; nil when any `p`
  /// value is not 64 lowercase hex.
  static func membership(event: Event, sender: String) -> MembershipSnapshot? {
    guard event.kind == 39002 else { return nil }
    let values = event.tagValues("p")
    guard values.allSatisfy({ NostrID($0) != nil }) else { return nil }
    let members = Set(values)
    return MembershipSnapshot(
      memberCount: members.count, senderIsListed: members.contains(sender), signer: event.pubkey,
      isFresh: true)
  }
}
