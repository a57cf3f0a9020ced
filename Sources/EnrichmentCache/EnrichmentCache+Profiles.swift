import NostrEvent
import _NostrSQLite

extension EnrichmentCache {
  /// The cached profile of `pubkey` as seen by `account` on `relay`, marked fresh or stale.
  public func lookupProfile(
    account: String, relay: RelayOrigin, pubkey: String, now: Int64
  ) throws(CacheError) -> Cached<Profile>? {
    try HexKey.check(account, field: "account")
    try HexKey.check(pubkey, field: "pubkey")
    return try locked { db throws(CacheError) in
      try Self.readProfile(db, account: account, relay: relay.description, pubkey: pubkey, now: now)
    }
  }

  /// Reads one profile on a connection the caller holds.
  static func readProfile(
    _ db: CacheConnection, account: String, relay: String, pubkey: String, now: Int64
  ) throws(CacheError) -> Cached<Profile>? {
    try db.first(
      """
      SELECT display_name, picture, event_id, created_at, fetched_at FROM profiles
      WHERE account = ? AND relay = ? AND pubkey = ?
      """, [.text(account), .text(relay), .text(pubkey)]
    ) { row in
      Cached(
        value: Profile(
          pubkey: pubkey, displayName: row.text(0), pictureURL: row.text(1), eventID: row.text(2) ?? "",
          createdAt: row.integer(3)),
        fetchedAt: row.integer(4), now: now)
    }
  }

  /// Stores verified profile records in one transaction, applying the replacement order; a
  /// profile whose picture changed or vanished drops the stored avatar.
  package func storeProfiles(
    _ profiles: [Profile], account: String, relay: RelayOrigin, now: Int64
  ) throws(CacheError) -> [StoreOutcome] {
    try HexKey.check(account, field: "account")
    for profile in profiles {
      try HexKey.check(profile.pubkey, field: "pubkey")
      try HexKey.check(profile.eventID, field: "id")
    }
    return try write(account: account, discarded: profiles.map { _ in .discardedAccountRemoved }) {
      db throws(CacheError) in
      var outcomes: [StoreOutcome] = []
      for profile in profiles {
        outcomes.append(try storeProfile(db, profile, account: account, relay: relay.description, now: now))
      }
      return outcomes
    }
  }

  private func storeProfile(
    _ db: CacheConnection, _ profile: Profile, account: String, relay: String, now: Int64
  ) throws(CacheError) -> StoreOutcome {
    let key: [SQLiteValue] = [.text(account), .text(relay), .text(profile.pubkey)]
    let existing = try db.first(
      "SELECT event_id, created_at FROM profiles WHERE account = ? AND relay = ? AND pubkey = ?", key
    ) { row in (id: row.text(0) ?? "", createdAt: row.integer(1)) }
    if let existing {
      if existing.id == profile.eventID {
        try db.run(
          "UPDATE profiles SET fetched_at = ? WHERE account = ? AND relay = ? AND pubkey = ?",
          [.integer(now)] + key)
        return .renewed
      }
      guard Self.replaces(profile.createdAt, profile.eventID, existing.createdAt, existing.id) else {
        return .ignoredOlder
      }
    }
    try db.run(
      """
      INSERT OR REPLACE INTO profiles(account, relay, pubkey, display_name, picture, event_id, created_at,
        fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      """,
      key + [
        .text(profile.displayName), .text(profile.pictureURL), .text(profile.eventID),
        .integer(profile.createdAt), .integer(now),
      ])
    if existing != nil {
      try db.run(
        "DELETE FROM avatars WHERE account = ? AND relay = ? AND pubkey = ? AND url IS NOT ?",
        key + [.text(profile.pictureURL)])
    }
    return .stored
  }
}
