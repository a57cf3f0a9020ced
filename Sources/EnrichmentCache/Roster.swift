import NostrEvent

/// A membership record ready to store: the roster of a verified kind 39002, deduplicated and
/// bounded, with the full count.
package struct Roster: Sendable, Hashable {
  /// The channel id.
  package var channelID: String
  /// The first `Membership.maxStoredMembers` distinct members, in event order.
  package var members: [String]
  /// The number of distinct members.
  package var count: Int
  /// The relay key that signed the event.
  package var signer: String
  /// The event id.
  package var eventID: String
  /// The event's `created_at`.
  package var createdAt: Int64

  /// Builds a roster from member pubkeys; throws `invalidField` (`tags.p`) on a malformed one.
  package init(
    channelID: String, memberPubkeys: [String], signer: String, eventID: String, createdAt: Int64
  ) throws(CacheError) {
    var seen = Set<String>()
    var members: [String] = []
    for pubkey in memberPubkeys {
      guard NostrID(pubkey) != nil else { throw .invalid("tags.p", "member is not 64 lowercase hex") }
      if seen.insert(pubkey).inserted, members.count < Membership.maxStoredMembers {
        members.append(pubkey)
      }
    }
    self.channelID = channelID
    self.members = members
    self.count = seen.count
    self.signer = signer
    self.eventID = eventID
    self.createdAt = createdAt
  }

  /// The roster summary for `pubkey`, as a lookup of the stored roster gives it: listed, not
  /// listed, or (outside a roster truncated at `Membership.maxStoredMembers`) unknown.
  package func membership(for pubkey: String) -> Membership {
    let isListed: Bool? = members.contains(pubkey) ? true : (count > members.count ? nil : false)
    return Membership(
      channelID: channelID, count: count, signer: signer, eventID: eventID, createdAt: createdAt,
      isListed: isListed)
  }

  /// The stored members as one blob of 32-byte keys.
  var packedMembers: [UInt8] {
    var blob: [UInt8] = []
    blob.reserveCapacity(members.count * 32)
    for member in members { blob += NostrID(member)?.bytes ?? [] }
    return blob
  }
}
