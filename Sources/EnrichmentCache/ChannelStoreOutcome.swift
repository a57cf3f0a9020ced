/// What a channel refresh did with each half of the metadata/membership pair.
public struct ChannelStoreOutcome: Sendable, Hashable {
  /// The metadata write, or nil when no metadata was given.
  public var metadata: StoreOutcome?
  /// The membership write, or nil when no membership was given.
  public var membership: StoreOutcome?

  /// Creates an outcome.
  public init(metadata: StoreOutcome?, membership: StoreOutcome?) {
    self.metadata = metadata
    self.membership = membership
  }
}
