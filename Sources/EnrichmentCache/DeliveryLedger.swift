import Foundation
import _NostrSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The delivery claims (`Docs/NotificationServiceExtension.md`) in a SQLite file of their own beside the
/// cache: `<cache path>.claims`, with its own `-wal` and `-shm`.
///
/// Decisions (hardening §2, where the spec left the choice open):
/// - Claims do not share the records file's write lock. The app's importer may hold that lock for
///   seconds (a chunk of 256 profiles, retried up to 7.75 s); a claim behind it would have to be
///   given up, and a message shown without its claim comes back on the next wake. Only claims,
///   presentations and account removals write this file, each a short transaction, and a claim
///   waits for its lock up to the wake's deadline, not the cache's busy timeout.
/// - Any `corrupt` or not-a-database answer, from opening or from any operation, a file of a newer
///   ledger schema, or a directory at the path moves the file aside (`<path>.corrupt-<unix time>`)
///   and starts a fresh ledger, at most once per operation. Claims are short-lived records: the
///   most a damaged ledger costs is one repeat of a message it had recorded, while a ledger that
///   could not be written would make every later wake fall back.
/// - A new ledger takes over the claims the records file held before claims moved out (its
///   `deliveries` table, schema 2), so upgrading repeats nothing.
/// - The file is created `0600` (its `-wal` and `-shm` take the same mode from SQLite).
///
/// The connection is opened on first use and kept; every use holds one lock. When a caller holds
/// both this lock and the records connection's, it takes this one first.
final class DeliveryLedger: Sendable {
  /// The ledger's file name: the cache's, plus this suffix.
  static let suffix = ".claims"
  /// The ledger schema this code writes (`PRAGMA user_version`).
  static let currentVersion: Int64 = 1
  /// The ledger schema: one row per message id.
  static let schema = """
    CREATE TABLE IF NOT EXISTS deliveries(
      message_id TEXT PRIMARY KEY,
      account TEXT NOT NULL, relay TEXT NOT NULL,
      claimed_at INTEGER NOT NULL, claim_expires_at INTEGER NOT NULL, presented_at INTEGER
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS deliveries_claimed ON deliveries(claimed_at);
    CREATE INDEX IF NOT EXISTS deliveries_account ON deliveries(account);
    """

  /// One claim row, as a new ledger takes it over from the records file.
  struct Row: Sendable {
    var messageID: String
    var account: String
    var relay: String
    var claimedAt: Int64
    var claimExpiresAt: Int64
    var presentedAt: Int64?
  }

  /// The ledger file.
  let path: String
  private let busyTimeoutMilliseconds: Int32
  private let clock: @Sendable () -> Int64
  /// The claims a new ledger starts with (read from the records file; empty when it cannot be).
  private let inheritedRows: @Sendable () -> [Row]
  /// The open connection and the file it opened (to follow a file another process moved aside).
  private let connection = Locked<(db: CacheConnection, file: FileIdentity?)?>(nil)

  /// A ledger beside the cache file at `cachePath`, waiting `busyTimeoutMilliseconds` for its lock
  /// unless an operation is given its own wait.
  init(
    cachePath: String, busyTimeoutMilliseconds: Int32, clock: @escaping @Sendable () -> Int64,
    inheritedRows: @escaping @Sendable () -> [Row]
  ) {
    self.path = cachePath + Self.suffix
    self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    self.clock = clock
    self.inheritedRows = inheritedRows
  }

  /// Runs `body` on the ledger's connection (opening it first when needed), waiting up to
  /// `waitMilliseconds` (else the busy timeout) for its write lock. A `corrupt` answer, or a
  /// ledger that cannot be used as one, moves the file aside and runs `body` once more on a
  /// fresh ledger. A file another process moved aside (the path names another file now) is
  /// followed by reopening the path.
  func run<T>(waitMilliseconds: Int32? = nil, _ body: (CacheConnection) throws(CacheError) -> T)
    throws(CacheError) -> T
  {
    let wait = waitMilliseconds ?? busyTimeoutMilliseconds
    return try connection.withLock { (connection) throws(CacheError) -> T in
      var movedAside = false
      while true {
        do throws(CacheError) {
          let db: CacheConnection
          if let open = connection, open.file == FileIdentity(path: path) {
            db = open.db
          } else {
            connection = nil
            db = try open(busyTimeoutMilliseconds: wait)
            connection = (db, FileIdentity(path: path))
          }
          db.setBusyTimeout(milliseconds: wait)
          defer { db.setBusyTimeout(milliseconds: busyTimeoutMilliseconds) }
          return try body(db)
        } catch {
          guard !movedAside, error.code == .corrupt || error.code == .newerSchema else { throw error }
          movedAside = true
          connection = nil
          try CacheOpener.moveAside(path: path, now: clock())
        }
      }
    }
  }

  /// Whether the ledger file exists (an inspecting caller never creates it).
  var exists: Bool { FileManager.default.fileExists(atPath: path) }

  /// Opens the ledger: a directory at the path or a file of a newer schema reads as `corrupt`
  /// (moved aside by the caller); a new file is created `0600`, and a new ledger takes over the
  /// records file's claims in the transaction that creates its table.
  private func open(busyTimeoutMilliseconds: Int32) throws(CacheError) -> CacheConnection {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
      throw CacheError(code: .corrupt, field: "path", message: "the claims path is a directory")
    }
    Self.createPrivately(path)
    let db = try CacheConnection(cachePath: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    let migrator = migrator()
    try migrator.checkKnown(db)
    let mode = try db.first("PRAGMA journal_mode = WAL") { row in row.text(0) ?? "" }
    guard mode?.lowercased() == "wal" else {
      throw CacheError(code: .storage, message: "cannot switch the claims file to WAL (\(mode ?? "unknown"))")
    }
    try db.execute("PRAGMA synchronous = NORMAL")
    try migrator.migrate(db)
    return db
  }

  /// The ledger's one schema step: create the table and take over the records file's claims
  /// in the same transaction.
  private func migrator() -> SQLiteMigrator<CacheError> {
    let rows = inheritedRows
    return SQLiteMigrator(
      [
        SQLiteMigration("claims") { db throws(CacheError) in
          try db.execute(Self.schema)
          for row in rows() {
            try db.run(
              """
              INSERT OR IGNORE INTO deliveries(message_id, account, relay, claimed_at, claim_expires_at, presented_at)
              VALUES (?, ?, ?, ?, ?, ?)
              """,
              [
                .text(row.messageID), .text(row.account), .text(row.relay), .integer(row.claimedAt),
                .integer(row.claimExpiresAt), row.presentedAt.map { .integer($0) } ?? .null,
              ])
          }
        }
      ],
      newerSchema: { found, known in
        CacheError(
          code: .newerSchema, field: "user_version",
          message: "the claims file has schema version \(found); this library knows up to \(known)")
      })
  }

  /// Creates the file at `path` with mode `0600` unless something is there already (a symlink
  /// is never followed).
  private static func createPrivately(_ path: String) {
    #if canImport(Glibc)
    let descriptor = Glibc.open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
    #else
    let descriptor = Darwin.open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
    #endif
    if descriptor >= 0 { close(descriptor) }
  }
}
