import Foundation
import NostrEvent
import _NostrSQLite

extension EnrichmentCache {
  /// The cached metadata of a channel, marked fresh or stale.
  package func lookupChannel(
    account: String, relay: RelayOrigin, channelID: String, now: Int64
  ) throws(CacheError) -> Cached<ChannelMetadata>? {
    try HexKey.check(account, field: "account")
    try Self.checkChannelID(channelID)
    return try locked { db throws(CacheError) in
      try Self.readChannel(db, account: account, relay: relay.description, channelID: channelID, now: now)
    }
  }

  /// Reads one channel's metadata on a connection the caller holds.
  static func readChannel(
    _ db: CacheConnection, account: String, relay: String, channelID: String, now: Int64
  ) throws(CacheError) -> Cached<ChannelMetadata>? {
    try db.first(
      """
      SELECT name, type, signer, event_id, created_at, fetched_at FROM channels
      WHERE account = ? AND relay = ? AND channel_id = ?
      """, [.text(account), .text(relay), .text(channelID)]
    ) { row in
      Cached(
        value: ChannelMetadata(
          channelID: channelID, name: row.text(0), type: row.text(1).flatMap(ChannelType.init(rawValue:)),
          signer: row.text(2) ?? "", eventID: row.text(3) ?? "", createdAt: row.integer(4)),
        fetchedAt: row.integer(5), now: now)
    }
  }

  /// The cached roster summary of a channel, marked fresh or stale; `member` (usually the
  /// sender) is looked up in the roster to fill `isListed`.
  package func lookupMembership(
    account: String, relay: RelayOrigin, channelID: String, member: String? = nil, now: Int64
  ) throws(CacheError) -> Cached<Membership>? {
    try HexKey.check(account, field: "account")
    try Self.checkChannelID(channelID)
    let memberBytes: [UInt8]?
    if let member {
      try HexKey.check(member, field: "member")
      memberBytes = NostrID(member)?.bytes
    } else {
      memberBytes = nil
    }
    return try locked { db throws(CacheError) in
      try Self.readMembership(
        db, account: account, relay: relay.description, channelID: channelID, memberBytes: memberBytes,
        now: now)
    }
  }

  /// Reads one channel's roster summary on a connection the caller holds; `memberBytes` is the
  /// 32-byte key looked up for `isListed`.
  static func readMembership(
    _ db: CacheConnection, account: String, relay: String, channelID: String, memberBytes: [UInt8]?,
    now: Int64
  ) throws(CacheError) -> Cached<Membership>? {
    try db.first(
      """
      SELECT members, member_count, signer, event_id, created_at, fetched_at FROM memberships
      WHERE account = ? AND relay = ? AND channel_id = ?
      """, [.text(account), .text(relay), .text(channelID)]
    ) { row in
      let count = Int(row.integer(1))
      var listed: Bool?
      if let memberBytes {
        let blob = row.blob(0) ?? []
        if Self.blob(blob, contains: memberBytes) {
          listed = true
        } else {
          listed = blob.count / 32 >= count ? false : nil
        }
      }
      return Cached(
        value: Membership(
          channelID: channelID, count: count, signer: row.text(2) ?? "", eventID: row.text(3) ?? "",
          createdAt: row.integer(4), isListed: listed),
        fetchedAt: row.integer(5), now: now)
    }
  }

  /// The stored roster of a channel (at most `Membership.maxStoredMembers`), in event order.
  package func lookupMembers(account: String, relay: RelayOrigin, channelID: String) throws(CacheError)
    -> [String]?
  {
    try HexKey.check(account, field: "account")
    try Self.checkChannelID(channelID)
    let blob = try locked { db throws(CacheError) in
      try db.first(
        "SELECT members FROM memberships WHERE account = ? AND relay = ? AND channel_id = ?",
        [.text(account), .text(relay.description), .text(channelID)]
      ) { row in row.blob(0) ?? [] }
    }
    guard let blob else { return nil }
    return stride(from: 0, to: blob.count - blob.count % 32, by: 32).map { start in
      Self.hex(blob[start..<start + 32])
    }
  }

  /// Stores a channel refresh: metadata, roster or both, each verified and signed by the relay key.
  ///
  /// In one transaction: a new signer clears both halves; each half follows the replacement order;
  /// a half that was replaced while the other half was not part of this refresh removes the old
  /// other half, so a new name never shows with an old count.
  package func storeChannel(
    metadata: ChannelMetadata?, roster: Roster?, account: String, relay: RelayOrigin, now: Int64
  ) throws(CacheError) -> ChannelStoreOutcome {
    try storeChannels([(metadata, roster)], account: account, relay: relay, now: now)[0]
  }

  /// Stores several channel refreshes in one transaction (see `storeChannel`).
  package func storeChannels(
    _ pairs: [(ChannelMetadata?, Roster?)], account: String, relay: RelayOrigin, now: Int64
  ) throws(CacheError) -> [ChannelStoreOutcome] {
    try HexKey.check(account, field: "account")
    for (metadata, roster) in pairs {
      guard metadata != nil || roster != nil else {
        throw .invalid("channel", "neither metadata nor membership")
      }
      if let metadata, let roster {
        guard metadata.channelID == roster.channelID else {
          throw .invalid("tags.d", "halves name other channels")
        }
        guard metadata.signer == roster.signer else { throw .invalid("pubkey", "halves have other signers") }
      }
      try Self.checkChannelID(metadata?.channelID ?? roster?.channelID ?? "")
    }
    let discarded = pairs.map { pair in
      ChannelStoreOutcome(
        metadata: pair.0 == nil ? nil : .discardedAccountRemoved,
        membership: pair.1 == nil ? nil : .discardedAccountRemoved)
    }
    return try write(account: account, discarded: discarded) { db throws(CacheError) in
      var outcomes: [ChannelStoreOutcome] = []
      for (metadata, roster) in pairs {
        outcomes.append(
          try storeChannel(
            db, metadata: metadata, roster: roster, account: account, relay: relay.description, now: now))
      }
      return outcomes
    }
  }

  private func storeChannel(
    _ db: CacheConnection, metadata: ChannelMetadata?, roster: Roster?, account: String, relay: String,
    now: Int64
  ) throws(CacheError) -> ChannelStoreOutcome {
    let channelID = metadata?.channelID ?? roster?.channelID ?? ""
    let signer = metadata?.signer ?? roster?.signer ?? ""
    let key: [SQLiteValue] = [.text(account), .text(relay), .text(channelID)]
    let whereKey = "WHERE account = ? AND relay = ? AND channel_id = ?"
    typealias Stored = (signer: String, id: String, createdAt: Int64)
    let read: (SQLiteRow) -> Stored = { row in (row.text(0) ?? "", row.text(1) ?? "", row.integer(2)) }
    var oldMetadata = try db.first("SELECT signer, event_id, created_at FROM channels \(whereKey)", key, read)
    var oldRoster = try db.first(
      "SELECT signer, event_id, created_at FROM memberships \(whereKey)", key, read)
    if (oldMetadata.map { $0.signer != signer } ?? false) || (oldRoster.map { $0.signer != signer } ?? false)
    {
      try db.run("DELETE FROM channels \(whereKey)", key)
      try db.run("DELETE FROM memberships \(whereKey)", key)
      oldMetadata = nil
      oldRoster = nil
    }
    func outcome(_ old: Stored?, _ createdAt: Int64, _ id: String) -> StoreOutcome {
      guard let old else { return .stored }
      if old.id == id { return .renewed }
      return Self.replaces(createdAt, id, old.createdAt, old.id) ? .stored : .ignoredOlder
    }
    // One half: renew its fetch time, or replace it and drop the other half when it came alone.
    func storeHalf(
      in table: String, old: Stored?, columns: String, values: [SQLiteValue], signer: String, eventID: String,
      createdAt: Int64, otherTable: String, otherGiven: Bool
    ) throws(CacheError) -> StoreOutcome {
      let decision = outcome(old, createdAt, eventID)
      if decision == .renewed {
        try db.run("UPDATE \(table) SET fetched_at = ? \(whereKey)", [.integer(now)] + key)
      } else if decision == .stored {
        try db.run(
          """
          INSERT OR REPLACE INTO \(table)(account, relay, channel_id, \(columns), signer, event_id, created_at,
            fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
          key + values + [.text(signer), .text(eventID), .integer(createdAt), .integer(now)])
        if !otherGiven { try db.run("DELETE FROM \(otherTable) \(whereKey)", key) }
      }
      return decision
    }
    var result = ChannelStoreOutcome(metadata: nil, membership: nil)
    if let metadata {
      result.metadata = try storeHalf(
        in: "channels", old: oldMetadata, columns: "name, type",
        values: [.text(metadata.name), .text(metadata.type?.rawValue)], signer: metadata.signer,
        eventID: metadata.eventID, createdAt: metadata.createdAt, otherTable: "memberships",
        otherGiven: roster != nil)
    }
    if let roster {
      result.membership = try storeHalf(
        in: "memberships", old: oldRoster, columns: "members, member_count",
        values: [.blob(roster.packedMembers), .integer(Int64(roster.count))], signer: roster.signer,
        eventID: roster.eventID, createdAt: roster.createdAt, otherTable: "channels",
        otherGiven: metadata != nil)
    }
    return result
  }

  static func blob(_ blob: [UInt8], contains key: [UInt8]) -> Bool {
    guard key.count == 32 else { return false }
    return blob.withUnsafeBytes { raw in
      key.withUnsafeBytes { needle in
        var offset = 0
        while offset + 32 <= raw.count {
          if memcmp(raw.baseAddress! + offset, needle.baseAddress!, 32) == 0 { return true }
          offset += 32
        }
        return false
      }
    }
  }

  private static func hex(_ bytes: ArraySlice<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}
