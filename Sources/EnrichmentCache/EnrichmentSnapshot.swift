/// Everything a notification needs from the cache about one message, read in one snapshot.
///
/// One read transaction instead of three: the three records are consistent with each other and
/// the lookup pays for the WAL read locks once.
package struct EnrichmentSnapshot: Sendable, Hashable {
  /// The sender's profile, when cached.
  package var profile: Cached<Profile>?
  /// The channel's metadata, when a channel was asked for and is cached.
  package var channel: Cached<ChannelMetadata>?
  /// The channel's roster summary with `isListed` for the sender, when cached.
  package var membership: Cached<Membership>?

  /// Creates a snapshot.
  package init(profile: Cached<Profile>?, channel: Cached<ChannelMetadata>?, membership: Cached<Membership>?)
  {
    self.profile = profile
    self.channel = channel
    self.membership = membership
  }

  /// The recipient count to show: from a roster signed by the same key as the metadata, else nil.
  package var recipientCount: Int? {
    guard let channel, let membership else { return nil }
    return membership.value.recipientCount(metadataSigner: channel.value.signer)
  }
}
