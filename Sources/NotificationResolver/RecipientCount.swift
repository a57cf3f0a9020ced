/// The notification's recipient count: the other members of the channel, from a roster the relay
/// key signed.
package enum RecipientCount {
  /// Members other than the sender, or nil when that is not at least 1.
  ///
  /// Call it only with a membership verified from the same relay key as the channel metadata;
  /// `memberCount` is the roster's full size, `senderIsMember` whether the sender is listed.
  package static func count(memberCount: Int, senderIsMember: Bool) -> Int? {
    let others = senderIsMember ? memberCount - 1 : memberCount
    return others >= 1 ? others : nil
  }
}
