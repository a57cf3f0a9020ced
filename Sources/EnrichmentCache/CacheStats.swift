/// Row counts and on-disk size of the cache, from `EnrichmentCache.stats()`: what an app shows in
/// a storage screen or logs.
public struct CacheStats: Sendable, Hashable {
  /// Stored profiles, over every account and relay.
  public var profiles: Int
  /// Stored channel metadata records.
  public var channels: Int
  /// Channels with a stored roster.
  public var memberships: Int
  /// Stored avatars.
  public var avatars: Int
  /// Delivery claims not yet pruned.
  public var deliveries: Int
  /// Size of the database file plus its write-ahead log, in bytes.
  public var bytes: Int64

  /// Creates a statistics value.
  package init(profiles: Int, channels: Int, memberships: Int, avatars: Int, deliveries: Int, bytes: Int64) {
    self.profiles = profiles
    self.channels = channels
    self.memberships = memberships
    self.avatars = avatars
    self.deliveries = deliveries
    self.bytes = bytes
  }
}
