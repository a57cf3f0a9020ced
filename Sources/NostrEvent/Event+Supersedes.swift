extension Event {
  /// Whether this event supersedes `other`: NIP-01's rule for replaceable and addressable events.
  ///
  /// See ``supersedes(createdAt:id:overCreatedAt:id:)``.
  public func supersedes(_ other: Event) -> Bool {
    Self.supersedes(createdAt: createdAt, id: id, overCreatedAt: other.createdAt, id: other.id)
  }

  /// NIP-01's "which event supersedes" rule, the one place the package writes it: the event with
  /// the greater `created_at` wins; at equal `created_at` the lower id (lexical order of the
  /// lowercase hex) wins. Equal values never supersede each other, so the rule is a strict order.
  ///
  /// Every "newest first" order in the package is this rule: lease replacement in both lease
  /// stores, the enrichment cache's profiles and channels, the resolver's choice of message,
  /// profile and roster, the fixture's and the service's event stores. Where SQL sorts the same
  /// way, it spells the rule as `ORDER BY created_at DESC, <id column> ASC` and cites this
  /// function (`PushStatements.currentEvents`, `PostgresStatements.currentEvents`,
  /// `ServiceEventStore.events(matching:visible:)`); a test of each store pins that they agree.
  public static func supersedes(
    createdAt: Int64, id: String, overCreatedAt otherCreatedAt: Int64, id otherID: String
  )
    -> Bool
  {
    createdAt != otherCreatedAt ? createdAt > otherCreatedAt : id < otherID
  }
}
