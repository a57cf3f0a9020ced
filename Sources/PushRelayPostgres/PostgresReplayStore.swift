import NostrEvent
import NostrPushCore
import PushRelay
import _NostrPostgres

/// The PostgreSQL `NIP98ReplayStore`: NIP-98 ids burnt in the `push_nip98_replay` table, so that
/// every relay process serving one origin from the database refuses a header another process
/// already accepted (`Docs/Robustness.md`).
///
/// A burn is one `INSERT … ON CONFLICT` of the id with its expiry (the event's `created_at` + the
/// verifier's window), guarded by the number of live rows: a table holding `capacity` live ids
/// refuses new ones (`unavailable`) and never drops a live one. Rows past their expiry are pruned
/// at most once a second per process, and an expired row met by a conflict is taken over, so a
/// lagging prune never refuses a fresh id. Concurrent burns from several processes may pass the
/// capacity by at most one row each (the count and the insert are one statement, not a lock).
/// Any database failure is `unavailable` (a 503), never an acceptance: the id was not burnt.
///
/// One connection of its own, used under its lock; the times are the verifier's clock.
public final class PostgresReplayStore: NIP98ReplayStore {
  /// The default bound on live ids, the in-memory set's.
  public static let defaultCapacity = 10_000
  /// How often expired rows are deleted (at most once per this many seconds per process).
  static let pruneIntervalSeconds: Int64 = 1

  private let connection: Locked<PostgresConnection>
  private let capacity: Int
  private let lastPrune = Locked<Int64?>(nil)

  /// A store with a connection of its own to `database`, holding at most `capacity` live ids.
  public init(database: PostgresDatabase, capacity: Int = defaultCapacity) throws(PushRelayError) {
    connection = Locked(try database.connect())
    self.capacity = max(1, capacity)
  }

  /// Burns `id` until `expiresAt` (`NIP98ReplayStore`).
  public func burn(_ id: String, expiresAt: Int64, now: Int64) throws(NIP98Error) {
    let id = id.lowercased()
    let prune = lastPrune.withLock { last in
      guard last.map({ now - $0 >= Self.pruneIntervalSeconds || now < $0 }) ?? true else { return false }
      last = now
      return true
    }
    let outcome: Bool?
    do throws(PostgresFailure) {
      outcome = try connection.withLock { (connection) throws(PostgresFailure) -> Bool? in
        try connection.ensureConnected()
        if prune { try connection.query(PostgresStatements.pruneReplays, [String(now)]) }
        let parameters = [id, String(expiresAt), String(now), String(capacity)]
        if !(try connection.query(PostgresStatements.burnReplay, parameters, maxRows: 1).rows.isEmpty) {
          return nil
        }
        return
          !(try connection.query(PostgresStatements.liveReplay, [id, String(now)], maxRows: 1).rows.isEmpty)
      }
    } catch {
      throw NIP98Error(
        code: .unavailable, message: "the replay store is unavailable: \(error.relayError.message)")
    }
    switch outcome {
    case nil: return
    case true?: throw NIP98Error(code: .replayed, message: "event \(id) was already used")
    case false?:
      throw NIP98Error(
        code: .unavailable, message: "the replay store holds \(capacity) live ids; try again shortly")
    }
  }
}
