import Foundation
import NostrEvent
import _NostrSQLite

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
/// - Delivery claims are per message id in the file (one device), whichever account claimed it.
/// - A damaged file that still has a valid header is found by the operation that meets it rather
///   than checked at open (a full check would break the 5 ms open budget): any `corrupt` answer
///   moves the file aside and runs the operation once more on a fresh file (hardening §2).
/// - Delivery claims live in a file of their own beside the cache (`DeliveryLedger`,
///   `<path>.claims`), so the app's long write transactions never block a wake's claim.
/// - A records file of a newer schema is refused and left untouched, but the cache still opens:
///   every records operation then throws `newerSchema`, while delivery claims, in their own file,
///   keep working — a wake must be able to claim what it shows whatever the records file holds.
///
/// The only mutable state — the connection, its statement cache and a failure count — is used
/// only under one lock; the other stored properties are immutable.
public final class EnrichmentCache: Sendable {
  /// The default size bound of the database (32 MiB): past it, each write evicts avatars least
  /// recently used first, then the oldest profiles and channels.
  public static let defaultMaxBytes: Int64 = 32 * 1024 * 1024
  /// The default busy timeout (2 s), for the app; an extension opens the cache with at most
  /// 250 ms so a cache locked by the app never costs it its deadline.
  public static let defaultBusyTimeout: Duration = .seconds(2)
  /// How long a delivery claim is kept (15 days): the longest presentation window the resolver
  /// accepts (14 days) + 1 day, so a message can never come back once its claim is pruned,
  /// whatever window the wake that pruned it was configured with.
  public static let deliveryRetention: Int64 = 15 * 24 * 3600
  /// The longest channel id accepted, in UTF-8 bytes.
  package static let maxChannelIDBytes = 256
  /// The longest `ETag` or `Last-Modified` value kept, in UTF-8 bytes.
  package static let maxValidatorBytes = 256
  /// Avatar use is stamped at most this often (seconds), so lookups rarely write.
  static let avatarTouchInterval: Int64 = 60

  /// The database file, as passed to `init(path:busyTimeout:maxBytes:)`.
  public let path: String
  /// The size bound in bytes, enforced inside every write transaction by evicting records.
  public let maxBytes: Int64
  /// The clock used where no `now` is passed (corrupt-file names, import fetch times).
  package let clock: @Sendable () -> Int64

  /// The records connection (nil when the file was refused: `refusal`), and how many calls on it
  /// failed `busy` or `locked`.
  private struct Guarded {
    var connection: CacheConnection? {
      didSet { identity = connection == nil ? nil : FileIdentity(path: path) }
    }
    var refusal: CacheError?
    var transientFailures = 0
    /// The file the connection opened, to notice when another process moved it aside.
    private(set) var identity: FileIdentity?
    let path: String

    init(path: String) { self.path = path }
  }

  private let guarded: Locked<Guarded>
  /// The records connection's busy timeout, for reopening after a corrupt file was moved aside.
  private let busyTimeoutMilliseconds: Int32
  /// The delivery claims, in their own file beside the cache.
  let ledger: DeliveryLedger

  /// The current unix time in seconds.
  package static let systemClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

  /// Opens (creating or migrating when needed) the cache file at `path`: the app opens it once,
  /// in its App Group container, and keeps it; an extension opens it per wake with a busy timeout
  /// of at most 250 ms, so a locked file costs enrichment, never the deadline.
  ///
  /// A file that is not a database (or a directory at `path`) is moved aside to
  /// `<path>.corrupt-<unix time>` and a fresh one is started, at open or when any later operation
  /// meets a damaged page; a file from a newer schema is left untouched and every records
  /// operation throws `newerSchema` (delivery claims live in their own file and still work).
  public convenience init(
    path: String, busyTimeout: Duration = EnrichmentCache.defaultBusyTimeout,
    maxBytes: Int64 = EnrichmentCache.defaultMaxBytes
  ) throws(CacheError) {
    try self.init(path: path, busyTimeout: busyTimeout, maxBytes: maxBytes, clock: Self.systemClock)
  }

  /// As `init(path:busyTimeout:maxBytes:)`, with `clock` instead of the system clock (tests and
  /// the CLI's fixed `now`).
  package init(
    path: String, busyTimeout: Duration = EnrichmentCache.defaultBusyTimeout,
    maxBytes: Int64 = EnrichmentCache.defaultMaxBytes, clock: @escaping @Sendable () -> Int64
  ) throws(CacheError) {
    self.path = path
    self.maxBytes = maxBytes
    self.clock = clock
    let timeout = Int32(clamping: max(0, busyTimeout.wholeMilliseconds))
    busyTimeoutMilliseconds = timeout
    var state = Guarded(path: path)
    do {
      state.connection = try Self.openRecords(path: path, busyTimeoutMilliseconds: timeout, clock: clock)
    } catch  where error.code == .newerSchema {
      state.refusal = error
    }
    let guarded = Locked(state)
    self.guarded = guarded
    ledger = DeliveryLedger(
      cachePath: path, busyTimeoutMilliseconds: timeout, clock: clock,
      inheritedRows: { Self.legacyClaims(guarded) })
  }

  /// Opens the records file, moving a file that is not a database aside and starting a fresh one.
  private static func openRecords(
    path: String, busyTimeoutMilliseconds: Int32, clock: () -> Int64
  ) throws(CacheError) -> CacheConnection {
    do {
      return try CacheOpener.open(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    } catch  where error.code == .corrupt {
      try CacheOpener.moveAside(path: path, now: clock())
      return try CacheOpener.open(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }
  }

  /// The claims the records file held before they moved to their own file (its `deliveries`
  /// table), for a new ledger to take over; empty when the file cannot answer.
  private static func legacyClaims(_ guarded: Locked<Guarded>) -> [DeliveryLedger.Row] {
    guarded.withLock { guarded in
      guard let db = guarded.connection else { return [] }
      return
        (try? db.query(
          "SELECT message_id, account, relay, claimed_at, claim_expires_at, presented_at FROM deliveries"
        ) { row in
          DeliveryLedger.Row(
            messageID: row.text(0) ?? "", account: row.text(1) ?? "", relay: row.text(2) ?? "",
            claimedAt: row.integer(3), claimExpiresAt: row.integer(4),
            presentedAt: row.optionalInteger(5))
        }) ?? []
    }
  }

  // MARK: - Accounts

  /// Registers an account and clears its removal tombstone, if any: what the app calls when the
  /// user signs in (a wake calls `registerAccount(_:now:)`, which never revives).
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
  /// number of rows deleted. Later writes for the account are discarded until `addAccount`. Its
  /// delivery claims, in their own file, are deleted right after (best effort: a claims file that
  /// cannot answer keeps them, which only keeps those messages from being shown again).
  @discardableResult
  public func removeAccount(_ account: String, now: Int64) throws(CacheError) -> Int {
    try HexKey.check(account, field: "account")
    let rows = try locked { db throws(CacheError) in
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
    let claims = try? ledger.run { db throws(CacheError) in
      try db.run("DELETE FROM deliveries WHERE account = ?", [.text(account)])
    }
    return rows + (claims ?? 0)
  }

  /// Whether the account carries a removal tombstone (removed by `removeAccount(_:now:)` and not
  /// yet added again): an app checks it on sign-in to know whether to call `addAccount(_:now:)`.
  public func isAccountRemoved(_ account: String) throws(CacheError) -> Bool {
    try HexKey.check(account, field: "account")
    return try locked { db throws(CacheError) in try isRemoved(db, account) }
  }

  // MARK: - Statistics

  /// Row counts and the size of the file plus its WAL: for an app's storage screen or its logs.
  /// `deliveries` counts the claims file's rows; before that file exists (this call does not
  /// create it), the claims the records file still holds from before claims moved out, which the
  /// claims file takes over when it is created.
  public func stats() throws(CacheError) -> CacheStats {
    let counts = try locked { db throws(CacheError) in
      try CacheSchema.accountTables.map { table throws(CacheError) in
        try db.first("SELECT count(*) FROM \(table)") { row in Int(row.integer(0)) } ?? 0
      }
    }
    let byTable = Dictionary(uniqueKeysWithValues: zip(CacheSchema.accountTables, counts))
    let deliveries =
      ledger.exists
      ? try ledger.run { db throws(CacheError) in
        try db.first("SELECT count(*) FROM deliveries") { row in Int(row.integer(0)) } ?? 0
      } : byTable["deliveries"] ?? 0
    return CacheStats(
      profiles: byTable["profiles"] ?? 0, channels: byTable["channels"] ?? 0,
      memberships: byTable["memberships"] ?? 0, avatars: byTable["avatars"] ?? 0,
      deliveries: deliveries, bytes: Self.fileSize(path) + Self.fileSize(path + "-wal"))
  }

  // MARK: - Internals

  /// Runs `SELECT 1` on the cache's connection: the benchmarks' baseline for one round trip.
  package func selectOne() throws(CacheError) -> Int64 {
    try locked { db throws(CacheError) in try db.first("SELECT 1") { row in row.integer(0) } ?? 0 }
  }

  /// Runs `body` with the records connection, holding the lock. A `corrupt` answer moves the
  /// file aside and runs `body` once more on a fresh file; a file another process moved aside
  /// (the path now names another file) is followed by reopening the path; a refused (newer) file
  /// throws its refusal.
  func locked<T>(_ body: (CacheConnection) throws(CacheError) -> T) throws(CacheError) -> T {
    try guarded.withLock { (guarded) throws(CacheError) -> T in
      var movedAside = false
      if guarded.connection != nil, guarded.identity != FileIdentity(path: path) {
        guarded.connection = nil
        guarded.connection = try Self.openRecords(
          path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, clock: clock)
      }
      while true {
        guard let connection = guarded.connection else {
          throw guarded.refusal ?? CacheError(code: .storage, message: "the cache file is not open")
        }
        do throws(CacheError) {
          return try body(connection)
        } catch  where error.code == .corrupt && !movedAside {
          movedAside = true
          guarded.connection = nil
          try CacheOpener.moveAside(path: path, now: clock())
          guarded.connection = try CacheOpener.open(
            path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        } catch {
          if error.isTransient { guarded.transientFailures += 1 }
          throw error
        }
      }
    }
  }

  /// How many calls on this connection have failed `busy` or `locked` (each after waiting up to
  /// the busy timeout): lets a test see that a caller stops asking a locked cache.
  package var transientFailureCount: Int { guarded.withLock { $0.transientFailures } }

  /// Runs a write for `account` in one `BEGIN IMMEDIATE` transaction: returns `discarded` when the
  /// account is removed, and enforces the size bound before committing.
  func write<T>(
    account: String, discarded: T, _ body: (CacheConnection) throws(CacheError) -> T
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

  func isRemoved(_ db: CacheConnection, _ account: String) throws(CacheError) -> Bool {
    try db.first("SELECT removed FROM accounts WHERE account = ?", [.text(account)]) { row in
      row.integer(0) != 0
    }
      ?? false
  }

  /// The replacement order: NIP-01's rule, ``Event/supersedes(createdAt:id:overCreatedAt:id:)``.
  static func replaces(_ createdAt: Int64, _ id: String, _ oldCreatedAt: Int64, _ oldID: String) -> Bool {
    Event.supersedes(createdAt: createdAt, id: id, overCreatedAt: oldCreatedAt, id: oldID)
  }

  static func checkChannelID(_ channelID: String) throws(CacheError) {
    guard !channelID.isEmpty, channelID.utf8.count <= maxChannelIDBytes else {
      throw .invalid("tags.d", "channel id must be 1 to 256 bytes")
    }
  }

  static func fileSize(_ path: String) -> Int64 {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
  }
}
