import Foundation

/// The SQLite cache of sender profiles, channel metadata and rosters, avatars and delivery claims
/// that a notification extension reads to name a message's sender and channel.
///
/// One file, shared by the app and its extension: WAL journal, a busy timeout, every write in one
/// `BEGIN IMMEDIATE` transaction, prepared statements reused. Every record is keyed by account
/// pubkey and canonical relay origin (`RelayOrigin`), and no read or write crosses accounts.
///
/// Decisions where the spec is silent:
/// - Lookups do not write, except the avatar's least-recently-used stamp (at most once a minute,
///   best effort, bounded by the busy timeout).
/// - A channel refresh that fetched both halves is stored with one `storeChannel(metadata:
///   membership:…)` call; a half stored alone that changed (a new event id) removes the other
///   half, while the same event fetched again only renews its fetch time.
/// - A write that loses to the replacement order changes nothing, not even the fetch time.
/// - Avatars are kept per (account, relay, sender) for the profile's current picture URL only; a
///   download for another URL is discarded.
/// - Delivery claims are per (account, relay, event id).
/// - A damaged file that still has a valid header is reported as `corrupt` by the operation that
///   meets it rather than checked at open (a full check would break the 5 ms open budget).
///
/// `@unchecked Sendable`: the only mutable state is the connection and its statement cache, and
/// every access to them happens inside `lock`; the other stored properties are immutable.
public final class EnrichmentCache: @unchecked Sendable {
  /// The default size bound of the database (32 MiB).
  public static let defaultMaxBytes: Int64 = 32 * 1024 * 1024
  /// The default busy timeout (2 s); the resolver opens the cache with at most 250 ms.
  public static let defaultBusyTimeout: Duration = .seconds(2)
  /// How long a delivery claim is kept (7 days).
  public static let deliveryRetention: Int64 = 7 * 24 * 3600
  /// The longest channel id accepted, in UTF-8 bytes.
  public static let maxChannelIDBytes = 256
  /// The longest picture URL kept, in UTF-8 bytes; a longer one counts as no picture.
  public static let maxPictureURLBytes = 2048
  /// The longest `ETag` or `Last-Modified` value kept, in UTF-8 bytes.
  public static let maxValidatorBytes = 256
  /// Avatar use is stamped at most this often (seconds), so lookups rarely write.
  static let avatarTouchInterval: Int64 = 60

  /// The database file.
  public let path: String
  /// The size bound enforced after every write.
  public let maxBytes: Int64
  /// The clock used where no `now` is passed (corrupt-file names, import fetch times).
  public let clock: @Sendable () -> Int64

  private let lock = NSLock()
  private let connection: SQLiteConnection

  /// The current unix time in seconds.
  public static let systemClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

  /// Opens (creating or migrating when needed) the cache file at `path`.
  ///
  /// A file that is not a database is moved aside to `<path>.corrupt-<unix time>` and a fresh one
  /// is started; a file from a newer schema is refused with `newerSchema` and left untouched.
  public init(
    path: String, busyTimeout: Duration = EnrichmentCache.defaultBusyTimeout,
    maxBytes: Int64 = EnrichmentCache.defaultMaxBytes,
    clock: @escaping @Sendable () -> Int64 = EnrichmentCache.systemClock
  ) throws(CacheError) {
    self.path = path
    self.maxBytes = maxBytes
    self.clock = clock
    let milliseconds =
      busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
    let timeout = Int32(clamping: max(0, milliseconds))
    do {
      connection = try CacheOpener.open(path: path, busyTimeoutMilliseconds: timeout)
    } catch  where error.code == .corrupt {
      try CacheOpener.moveAside(path: path, now: clock())
      connection = try CacheOpener.open(path: path, busyTimeoutMilliseconds: timeout)
    }
  }

  // MARK: - Accounts

  /// Registers an account and clears its removal tombstone, if any.
  public func addAccount(_ account: String, now: Int64) throws(CacheError) {
    try HexKey.check(account, field: "account")
    try locked { db throws(CacheError) in
      try db.immediateTransaction { () throws(CacheError) in
        _ = try db.run(
          "INSERT OR REPLACE INTO accounts(account, removed, changed_at) VALUES (?, 0, ?)",
          [.text(account), .integer(now)])
      }
    }
  }

  /// Registers an account on first use unless it carries a removal tombstone; returns false (and
  /// changes nothing) for a removed account. This is what a wake calls; only `addAccount` revives.
  @discardableResult
  public func registerAccount(_ account: String, now: Int64) throws(CacheError) -> Bool {
    try HexKey.check(account, field: "account")
    return try locked { db throws(CacheError) in
      try db.immediateTransaction { () throws(CacheError) in
        guard try !isRemoved(db, account) else { return false }
        try db.run(
          "INSERT OR IGNORE INTO accounts(account, removed, changed_at) VALUES (?, 0, ?)",
          [.text(account), .integer(now)])
        return true
      }
    }
  }

  /// Deletes every row of an account in one transaction and records a tombstone; returns the
  /// number of rows deleted. Later writes for the account are discarded until `addAccount`.
  @discardableResult
  public func removeAccount(_ account: String, now: Int64) throws(CacheError) -> Int {
    try HexKey.check(account, field: "account")
    return try locked { db throws(CacheError) in
      try db.immediateTransaction { () throws(CacheError) in
        var rows = 0
        for table in CacheSchema.accountTables {
          rows += try db.run("DELETE FROM \(table) WHERE account = ?", [.text(account)])
        }
        try db.run(
          "INSERT OR REPLACE INTO accounts(account, removed, changed_at) VALUES (?, 1, ?)",
          [.text(account), .integer(now)])
        return rows
      }
    }
  }

  /// Whether the account carries a removal tombstone.
  public func isAccountRemoved(_ account: String) throws(CacheError) -> Bool {
    try HexKey.check(account, field: "account")
    return try locked { db throws(CacheError) in try isRemoved(db, account) }
  }

  // MARK: - Profiles

  /// The cached profile of `pubkey` as seen by `account` on `relay`, marked fresh or stale.
  public func lookupProfile(
    account: String, relay: RelayOrigin, pubkey: String, now: Int64
  ) throws(CacheError) -> Cached<Profile>? {
    try HexKey.check(account, field: "account")
    try HexKey.check(pubkey, field: "pubkey")
    return try locked { db throws(CacheError) in
      try db.first(
        """
        SELECT display_name, picture, event_id, created_at, fetched_at FROM profiles
        WHERE account = ? AND relay = ? AND pubkey = ?
        """, [.text(account), .text(relay.string), .text(pubkey)]
      ) { row in
        Cached(
          value: Profile(
            pubkey: pubkey, displayName: row.text(0), pictureURL: row.text(1), eventID: row.text(2) ?? "",
            createdAt: row.integer(3)),
          fetchedAt: row.integer(4), now: now)
      }
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
        outcomes.append(try storeProfile(db, profile, account: account, relay: relay.string, now: now))
      }
      return outcomes
    }
  }

  // MARK: - Channels

  /// The cached metadata of a channel, marked fresh or stale.
  public func lookupChannel(
    account: String, relay: RelayOrigin, channelID: String, now: Int64
  ) throws(CacheError) -> Cached<ChannelMetadata>? {
    try HexKey.check(account, field: "account")
    try Self.checkChannelID(channelID)
    return try locked { db throws(CacheError) in
      try db.first(
        """
        SELECT name, type, signer, event_id, created_at, fetched_at FROM channels
        WHERE account = ? AND relay = ? AND channel_id = ?
        """, [.text(account), .text(relay.string), .text(channelID)]
      ) { row in
        Cached(
          value: ChannelMetadata(
            channelID: channelID, name: row.text(0), type: row.text(1).flatMap(ChannelType.init(rawValue:)),
            signer: row.text(2) ?? "", eventID: row.text(3) ?? "", createdAt: row.integer(4)),
          fetchedAt: row.integer(5), now: now)
      }
    }
  }

  /// The cached roster summary of a channel, marked fresh or stale; `member` (usually the
  /// sender) is looked up in the roster to fill `isListed`.
  public func lookupMembership(
    account: String, relay: RelayOrigin, channelID: String, member: String? = nil, now: Int64
  ) throws(CacheError) -> Cached<Membership>? {
    try HexKey.check(account, field: "account")
    try Self.checkChannelID(channelID)
    let memberBytes: [UInt8]?
    if let member {
      try HexKey.check(member, field: "member")
      memberBytes = HexKey.bytes(member)
    } else {
      memberBytes = nil
    }
    return try locked { db throws(CacheError) in
      try db.first(
        """
        SELECT members, member_count, signer, event_id, created_at, fetched_at FROM memberships
        WHERE account = ? AND relay = ? AND channel_id = ?
        """, [.text(account), .text(relay.string), .text(channelID)]
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
  }

  /// The stored roster of a channel (at most `Membership.maxStoredMembers`), in event order.
  public func lookupMembers(account: String, relay: RelayOrigin, channelID: String) throws(CacheError)
    -> [String]?
  {
    try HexKey.check(account, field: "account")
    try Self.checkChannelID(channelID)
    let blob = try locked { db throws(CacheError) in
      try db.first(
        "SELECT members FROM memberships WHERE account = ? AND relay = ? AND channel_id = ?",
        [.text(account), .text(relay.string), .text(channelID)]
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
            db, metadata: metadata, roster: roster, account: account, relay: relay.string, now: now))
      }
      return outcomes
    }
  }

  // MARK: - Avatars

  /// The stored avatar of `pubkey`, only while its URL is still the profile's picture.
  public func lookupAvatar(
    account: String, relay: RelayOrigin, pubkey: String, now: Int64
  ) throws(CacheError) -> Cached<Avatar>? {
    try HexKey.check(account, field: "account")
    try HexKey.check(pubkey, field: "pubkey")
    let key: [SQLiteValue] = [.text(account), .text(relay.string), .text(pubkey)]
    return try locked { db throws(CacheError) in
      let found = try db.first(
        """
        SELECT a.url, a.content_type, a.bytes, a.etag, a.last_modified, a.fetched_at, a.used_at
        FROM avatars a JOIN profiles p
          ON p.account = a.account AND p.relay = a.relay AND p.pubkey = a.pubkey AND p.picture = a.url
        WHERE a.account = ? AND a.relay = ? AND a.pubkey = ?
        """, key
      ) { row -> (Cached<Avatar>, Int64)? in
        guard let format = row.text(1).flatMap(ImageFormat.init(contentType:)) else { return nil }
        let avatar = Avatar(
          url: row.text(0) ?? "", format: format, bytes: row.blob(2) ?? [], etag: row.text(3),
          lastModified: row.text(4))
        return (Cached(value: avatar, fetchedAt: row.integer(5), now: now), row.integer(6))
      }
      guard let (avatar, usedAt) = found ?? nil else { return nil }
      if now - usedAt >= Self.avatarTouchInterval || now < usedAt {
        _ = try? db.immediateTransaction { () throws(CacheError) in
          try db.run(
            "UPDATE avatars SET used_at = ? WHERE account = ? AND relay = ? AND pubkey = ?",
            [.integer(now)] + key)
        }
      }
      return avatar
    }
  }

  /// Stores downloaded avatar bytes for `pubkey`'s current picture `url`.
  ///
  /// Throws `invalidImage` unless the bytes are PNG, JPEG, GIF or WebP of at most
  /// `Avatar.maxBytes`; returns `ignoredOlder` when `url` is no longer the profile's picture.
  @discardableResult
  public func storeAvatar(
    account: String, relay: RelayOrigin, pubkey: String, url: String, bytes: [UInt8], etag: String?,
    lastModified: String?, now: Int64
  ) throws(CacheError) -> StoreOutcome {
    try HexKey.check(account, field: "account")
    try HexKey.check(pubkey, field: "pubkey")
    guard bytes.count <= Avatar.maxBytes else {
      throw CacheError(code: .invalidImage, field: "bytes", message: "larger than 512 KiB")
    }
    guard let format = ImageFormat(sniffing: bytes) else {
      throw CacheError(code: .invalidImage, field: "bytes", message: "not PNG, JPEG, GIF or WebP")
    }
    let etag = etag.flatMap { $0.utf8.count <= Self.maxValidatorBytes ? $0 : nil }
    let lastModified = lastModified.flatMap { $0.utf8.count <= Self.maxValidatorBytes ? $0 : nil }
    let key: [SQLiteValue] = [.text(account), .text(relay.string), .text(pubkey)]
    return try write(account: account, discarded: .discardedAccountRemoved) { db throws(CacheError) in
      let current = try db.first(
        "SELECT picture FROM profiles WHERE account = ? AND relay = ? AND pubkey = ?", key
      ) { row in row.text(0) }
      guard let current, current == url else { return .ignoredOlder }
      try db.run(
        """
        INSERT OR REPLACE INTO avatars(account, relay, pubkey, url, content_type, bytes, etag, last_modified,
          fetched_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        key + [
          .text(url), .text(format.contentType), .blob(bytes), .optionalText(etag),
          .optionalText(lastModified),
          .integer(now), .integer(now),
        ])
      return .stored
    }
  }

  /// Renews the fetch time of a stored avatar after a `304 Not Modified` for the same URL.
  @discardableResult
  public func renewAvatar(
    account: String, relay: RelayOrigin, pubkey: String, url: String, now: Int64
  ) throws(CacheError) -> StoreOutcome {
    try HexKey.check(account, field: "account")
    try HexKey.check(pubkey, field: "pubkey")
    return try write(account: account, discarded: .discardedAccountRemoved) { db throws(CacheError) in
      let changed = try db.run(
        "UPDATE avatars SET fetched_at = ? WHERE account = ? AND relay = ? AND pubkey = ? AND url = ?",
        [.integer(now), .text(account), .text(relay.string), .text(pubkey), .text(url)])
      return changed == 1 ? .renewed : .ignoredOlder
    }
  }

  // MARK: - Deliveries

  /// Claims an event for delivery, atomically: true for the first claim, false when it was
  /// already claimed. Claims older than `deliveryRetention` are pruned in the same transaction.
  /// Throws `accountRemoved` for a removed account.
  public func claimDelivery(eventID: String, account: String, relay: RelayOrigin, now: Int64)
    throws(CacheError) -> Bool
  {
    try HexKey.check(eventID, field: "id")
    try HexKey.check(account, field: "account")
    return try locked { db throws(CacheError) in
      try db.immediateTransaction { () throws(CacheError) in
        guard try !isRemoved(db, account) else {
          throw CacheError(code: .accountRemoved, field: "account", message: "the account was removed")
        }
        try db.run("DELETE FROM deliveries WHERE delivered_at < ?", [.integer(now - Self.deliveryRetention)])
        let inserted = try db.run(
          "INSERT OR IGNORE INTO deliveries(account, relay, event_id, delivered_at) VALUES (?, ?, ?, ?)",
          [.text(account), .text(relay.string), .text(eventID), .integer(now)])
        return inserted == 1
      }
    }
  }

  // MARK: - Statistics

  /// Row counts and the size of the file plus its WAL.
  public func stats() throws(CacheError) -> CacheStats {
    let counts = try locked { db throws(CacheError) in
      try CacheSchema.accountTables.map { table throws(CacheError) in
        try db.first("SELECT count(*) FROM \(table)") { row in Int(row.integer(0)) } ?? 0
      }
    }
    let byTable = Dictionary(uniqueKeysWithValues: zip(CacheSchema.accountTables, counts))
    return CacheStats(
      profiles: byTable["profiles"] ?? 0, channels: byTable["channels"] ?? 0,
      memberships: byTable["memberships"] ?? 0, avatars: byTable["avatars"] ?? 0,
      deliveries: byTable["deliveries"] ?? 0, bytes: Self.fileSize(path) + Self.fileSize(path + "-wal"))
  }

  // MARK: - Internals

  /// Runs `SELECT 1` on the cache's connection: the benchmarks' baseline for one round trip.
  package func selectOne() throws(CacheError) -> Int64 {
    try locked { db throws(CacheError) in try db.first("SELECT 1") { row in row.integer(0) } ?? 0 }
  }

  /// Runs `body` with the connection, holding the lock.
  func locked<T>(_ body: (SQLiteConnection) throws(CacheError) -> T) throws(CacheError) -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body(connection)
  }

  /// Runs a write for `account` in one `BEGIN IMMEDIATE` transaction: returns `discarded` when the
  /// account is removed, and enforces the size bound before committing.
  private func write<T>(
    account: String, discarded: T, _ body: (SQLiteConnection) throws(CacheError) -> T
  ) throws(CacheError) -> T {
    try locked { db throws(CacheError) in
      try db.immediateTransaction { () throws(CacheError) in
        guard try !isRemoved(db, account) else { return discarded }
        let result = try body(db)
        try CacheEviction.enforce(db, maxBytes: maxBytes)
        return result
      }
    }
  }

  private func isRemoved(_ db: SQLiteConnection, _ account: String) throws(CacheError) -> Bool {
    try db.first("SELECT removed FROM accounts WHERE account = ?", [.text(account)]) { row in
      row.integer(0) != 0
    }
      ?? false
  }

  private func storeProfile(
    _ db: SQLiteConnection, _ profile: Profile, account: String, relay: String, now: Int64
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
        .optionalText(profile.displayName), .optionalText(profile.pictureURL), .text(profile.eventID),
        .integer(profile.createdAt), .integer(now),
      ])
    if existing != nil {
      try db.run(
        "DELETE FROM avatars WHERE account = ? AND relay = ? AND pubkey = ? AND url IS NOT ?",
        key + [.optionalText(profile.pictureURL)])
    }
    return .stored
  }

  private func storeChannel(
    _ db: SQLiteConnection, metadata: ChannelMetadata?, roster: Roster?, account: String, relay: String,
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
    var result = ChannelStoreOutcome(metadata: nil, membership: nil)
    if let metadata {
      let decision = outcome(oldMetadata, metadata.createdAt, metadata.eventID)
      result.metadata = decision
      if decision == .renewed {
        try db.run("UPDATE channels SET fetched_at = ? \(whereKey)", [.integer(now)] + key)
      } else if decision == .stored {
        try db.run(
          """
          INSERT OR REPLACE INTO channels(account, relay, channel_id, name, type, signer, event_id, created_at,
            fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
          key + [
            .optionalText(metadata.name), .optionalText(metadata.type?.rawValue), .text(metadata.signer),
            .text(metadata.eventID), .integer(metadata.createdAt), .integer(now),
          ])
        if roster == nil { try db.run("DELETE FROM memberships \(whereKey)", key) }
      }
    }
    if let roster {
      let decision = outcome(oldRoster, roster.createdAt, roster.eventID)
      result.membership = decision
      if decision == .renewed {
        try db.run("UPDATE memberships SET fetched_at = ? \(whereKey)", [.integer(now)] + key)
      } else if decision == .stored {
        try db.run(
          """
          INSERT OR REPLACE INTO memberships(account, relay, channel_id, members, member_count, signer, event_id,
            created_at, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
          key + [
            .blob(roster.packedMembers), .integer(Int64(roster.count)), .text(roster.signer),
            .text(roster.eventID), .integer(roster.createdAt), .integer(now),
          ])
        if metadata == nil { try db.run("DELETE FROM channels \(whereKey)", key) }
      }
    }
    return result
  }

  /// The replacement order: a larger `created_at` wins; a tie goes to the lower id.
  static func replaces(_ createdAt: Int64, _ id: String, _ oldCreatedAt: Int64, _ oldID: String) -> Bool {
    createdAt > oldCreatedAt || (createdAt == oldCreatedAt && id < oldID)
  }

  static func checkChannelID(_ channelID: String) throws(CacheError) {
    guard !channelID.isEmpty, channelID.utf8.count <= maxChannelIDBytes else {
      throw .invalid("tags.d", "channel id must be 1 to 256 bytes")
    }
  }

  private static func blob(_ blob: [UInt8], contains key: [UInt8]) -> Bool {
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

  private static func fileSize(_ path: String) -> Int64 {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
  }
}
