/// A channel's roster summary from a kind 39002 event signed by the relay key.
///
/// The full member count is always kept; the roster itself only up to
/// `Membership.maxStoredMembers`, so `isListed` can be unknown for very large channels.
package struct Membership: Sendable, Hashable {
  /// The most members stored per channel; beyond it only the count is kept.
  package static let maxStoredMembers = 10_000

  /// The channel id (the event's `d` tag).
  package var channelID: String
  /// The number of distinct members in the event.
  package var count: Int
  /// The relay key that signed the event.
  package var signer: String
  /// The event's id.
  package var eventID: String
  /// The event's `created_at`.
  package var createdAt: Int64
  /// Whether the queried pubkey is a member: nil when no pubkey was asked for, or when it is not
  /// in a roster that was truncated to `maxStoredMembers`.
  package var isListed: Bool?

  /// Creates a membership summary.
  package init(
    channelID: String, count: Int, signer: String, eventID: String, createdAt: Int64, isListed: Bool?
  ) {
    self.channelID = channelID
    self.count = count
    self.signer = signer
    self.eventID = eventID
    self.createdAt = createdAt
    self.isListed = isListed
  }

  /// The recipient count shown for a message from the queried pubkey: members − 1 when the sender
  /// is a member, else members; nil unless the roster was signed by `metadataSigner` and the
  /// count is at least 1. A sender outside a truncated roster (`isListed` nil) counts as a member
  /// (`Docs/NotificationServiceExtension.md`: a presented channel message passed the membership rule), so
  /// a cached count equals a freshly fetched one.
  package func recipientCount(metadataSigner: String) -> Int? {
    guard signer == metadataSigner else { return nil }
    let recipients = isListed != false ? count - 1 : count
    return recipients >= 1 ? recipients : nil
  }
}
