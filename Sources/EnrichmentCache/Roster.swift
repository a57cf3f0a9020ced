import NostrEvent

/// A membership record ready to store: the roster of a verified kind 39002, deduplicated and
/// bounded, with the full count.
package struct Roster: Sendable, Hashable {
  /// The channel id.
  package var channelID: String
  /// The first `Membership.maxStoredMembers` distinct members, in event order, as 32-byte keys
  /// back to back (the form stored, and a compact one to hold).
  package var packedMembers: [UInt8]
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
    var packed: [UInt8] = []
    for pubkey in memberPubkeys {
      guard let id = NostrID(pubkey) else { throw .invalid("tags.p", "member is not 64 lowercase hex") }
      if seen.insert(pubkey).inserted, packed.count < Membership.maxStoredMembers * 32 {
        packed += id.bytes
      }
    }
    self.init(
      channelID: channelID, packedMembers: packed, count: seen.count, signer: signer, eventID: eventID,
      createdAt: createdAt)
  }

  /// A roster from its stored form: at most `Membership.maxStoredMembers` distinct 32-byte keys
  /// and the distinct total.
  package init(
    channelID: String, packedMembers: [UInt8], count: Int, signer: String, eventID: String, createdAt: Int64
  ) {
    self.channelID = channelID
    self.packedMembers = packedMembers
    self.count = count
    self.signer = signer
    self.eventID = eventID
    self.createdAt = createdAt
  }

  /// The stored members as hex, in event order.
  package var members: [String] {
    stride(from: 0, to: packedMembers.count, by: 32).map { Hex.encode(Array(packedMembers[$0..<($0 + 32)])) }
  }

  /// Whether the stored members hold `pubkey` (64 lowercase hex).
  func storesMember(_ pubkey: String) -> Bool {
    guard let key = NostrID(pubkey)?.bytes else { return false }
    return stride(from: 0, to: packedMembers.count, by: 32).contains { offset in
      packedMembers[offset..<(offset + 32)].elementsEqual(key)
    }
  }

  /// The roster summary for `pubkey`, as a lookup of the stored roster gives it: listed, not
  /// listed, or (outside a roster truncated at `Membership.maxStoredMembers`) unknown.
  package func membership(for pubkey: String) -> Membership {
    let isListed: Bool? = storesMember(pubkey) ? true : (count > packedMembers.count / 32 ? nil : false)
    return Membership(
      channelID: channelID, count: count, signer: signer, eventID: eventID, createdAt: createdAt,
      isListed: isListed)
  }
}
