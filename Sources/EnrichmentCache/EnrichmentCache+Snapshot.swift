import NostrEvent
import _NostrSQLite

extension EnrichmentCache {
  /// The sender's profile and, when `channelID` is given, the channel's metadata and roster
  /// summary (with `isListed` for the sender), read in one snapshot.
  package func lookupSnapshot(
    account: String, relay: RelayOrigin, sender: String, channelID: String?, now: Int64
  ) throws(CacheError) -> EnrichmentSnapshot {
    try HexKey.check(account, field: "account")
    try HexKey.check(sender, field: "pubkey")
    if let channelID { try Self.checkChannelID(channelID) }
    let senderBytes = NostrID(sender)?.bytes
    let relay = relay.description
    return try locked { db throws(CacheError) in
      try db.readTransaction { () throws(CacheError) in
        let profile = try Self.readProfile(db, account: account, relay: relay, pubkey: sender, now: now)
        guard let channelID else {
          return EnrichmentSnapshot(profile: profile, channel: nil, membership: nil)
        }
        return EnrichmentSnapshot(
          profile: profile,
          channel: try Self.readChannel(db, account: account, relay: relay, channelID: channelID, now: now),
          membership: try Self.readMembership(
            db, account: account, relay: relay, channelID: channelID, memberBytes: senderBytes, now: now))
      }
    }
  }
}
