/// Everything a notification needs from the cache about one message, read in one snapshot.
///
/// One read transaction instead of three: the three records are consistent with each other and
/// the lookup pays for the WAL read locks once.
public struct EnrichmentSnapshot: Sendable, Hashable {
  /// The sender's profile, when cached.
  public var profile: Cached<Profile>?
  /// The channel's metadata, when a channel was asked for and is cached.
  public var channel: Cached<ChannelMetadata>?
  /// The channel's roster summary with `isListed` for the sender, when cached.
  public var membership: Cached<Membership>?

  /// Creates a snapshot.
  public init(profile: Cached<Profile>?, channel: Cached<ChannelMetadata>?, membership: Cached<Membership>?) {
    self.profile = profile
    self.channel = channel
    self.membership = membership
  }

  /// The recipient count to show: from a roster signed by the same key as the metadata, else nil.
  public var recipientCount: Int? {
    guard let channel, let membership else { return nil }
    return membership.value.recipientCount(metadataSigner: channel.value.signer)
  }
}
