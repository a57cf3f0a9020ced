/// What a channel refresh did with each half of the metadata/membership pair.
package struct ChannelStoreOutcome: Sendable, Hashable {
  /// The metadata write, or nil when no metadata was given.
  package var metadata: StoreOutcome?
  /// The membership write, or nil when no membership was given.
  package var membership: StoreOutcome?

  /// Creates an outcome.
  package init(metadata: StoreOutcome?, membership: StoreOutcome?) {
    self.metadata = metadata
    self.membership = membership
  }
}
