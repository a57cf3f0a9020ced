import NostrEvent

extension EnrichmentCache {
  /// Verifies a kind 0 and stores its author's profile, following the replacement order.
  ///
  /// Throws `wrongKind`, `invalidEvent` or `invalidField` (`content`); a profile without a
  /// picture, or with a new one, drops the stored avatar.
  @discardableResult
  public func storeProfile(event: Event, account: String, relay: RelayOrigin, now: Int64) throws(CacheError)
    -> StoreOutcome
  {
    try EventRecords.check(event, kind: Profile.kind, signer: nil)
    let record = try Profile(event: event)
    return try storeProfiles([record], account: account, relay: relay, now: now)[0]
  }

  /// Verifies a kind 39000 signed by `relayKey` and stores it as a refresh of the metadata alone
  /// (an older roster of the channel is removed when the metadata changes).
  @discardableResult
  package func storeChannelMetadata(
    event: Event, relayKey: String, account: String, relay: RelayOrigin, now: Int64
  ) throws(CacheError) -> StoreOutcome {
    try storeChannel(
      metadata: event, membership: nil, relayKey: relayKey, account: account, relay: relay, now: now
    )
    .metadata ?? .ignoredOlder
  }

  /// Verifies a kind 39002 signed by `relayKey` and stores it as a refresh of the roster alone
  /// (older metadata of the channel is removed when the roster changes).
  @discardableResult
  package func storeMembership(
    event: Event, relayKey: String, account: String, relay: RelayOrigin, now: Int64
  ) throws(CacheError) -> StoreOutcome {
    try storeChannel(
      metadata: nil, membership: event, relayKey: relayKey, account: account, relay: relay, now: now
    )
    .membership ?? .ignoredOlder
  }

  /// Verifies and stores one channel refresh — metadata, membership or both — in one transaction.
  ///
  /// Store both halves with one call when both were fetched: a half stored alone that changed
  /// removes the other half. Both must be signed by `relayKey` and name the same channel.
  @discardableResult
  package func storeChannel(
    metadata: Event?, membership: Event?, relayKey: String, account: String, relay: RelayOrigin, now: Int64
  ) throws(CacheError) -> ChannelStoreOutcome {
    try HexKey.check(relayKey, field: "relay_key")
    var metadataRecord: ChannelMetadata?
    var roster: Roster?
    if let metadata {
      try EventRecords.check(metadata, kind: EventRecords.channelMetadataKind, signer: relayKey)
      metadataRecord = try EventRecords.channelMetadata(metadata)
    }
    if let membership {
      try EventRecords.check(membership, kind: EventRecords.membershipKind, signer: relayKey)
      roster = try EventRecords.roster(membership)
    }
    return try storeChannel(
      metadata: metadataRecord, roster: roster, account: account, relay: relay, now: now)
  }
}
