import NostrPushCore
import PushRelay
import _NostrPostgres

/// The PostgreSQL `WakeOutbox`: the `push_wake` table several worker processes claim from
/// (`Docs/VendoringPushRelay.md`, "PostgreSQL").
///
/// A claim selects due rows `FOR UPDATE SKIP LOCKED`, so two workers never block each other or
/// take the same row; fences and backoff are on the database's clock (one clock for every
/// process), with `attempts` as the fence token: an outcome is written only while the row is still
/// `sending` with the claim's attempts and its fence ahead. An enqueue sends `NOTIFY push_wake`,
/// which `PostgresWakeListener` turns into a wake of every process's worker. ``sweep(nowMilliseconds:)``
/// runs in one process at a time (`pg_try_advisory_xact_lock`) and prunes expired wakes, recorded
/// events past the back-fill window, inactive leases a day past their expiry and the old change log.
///
/// One connection of its own, used under its lock.
public final class PostgresWakeOutbox: WakeOutbox, Sendable {
  /// Which clock the outbox's times are on.
  package enum Clock: Sendable {
    /// The database's (`clock_timestamp()`): every process agrees; the `nowMilliseconds` arguments
    /// are ignored. The default.
    case database
    /// The caller's `nowMilliseconds`, for a test driving the contract on a manual clock, as the
    /// SQLite outbox does.
    case caller
  }

  /// How many change-log rows per origin the sweeper keeps (a process further behind reloads).
  package static let keptChanges: Int64 = 10_000
  /// The most rows ``wakes()`` reads.
  package static let maxListedWakes = 100_000

  private let connection: Locked<PostgresConnection>
  private let clock: Clock
  private let fenceMilliseconds: Int64
  private let retryUnitMilliseconds: Int64

  /// An outbox with a connection of its own to `database`, on the database's clock, with the
  /// spec's 30 s claim and backoff in seconds.
  public convenience init(database: PostgresDatabase) throws(PushRelayError) {
    try self.init(database: database, clock: .database)
  }

  /// An outbox on `clock`, a claim holding `fenceMilliseconds` and a backoff of base ×
  /// 2^min(attempts − 1, 6) × `retryUnitMilliseconds` (tests shorten both).
  package init(
    database: PostgresDatabase, clock: Clock, fenceMilliseconds: Int64 = WakeSchedule.fenceMilliseconds,
    retryUnitMilliseconds: Int64 = 1000
  ) throws(PushRelayError) {
    connection = Locked(try database.connect())
    self.clock = clock
    self.fenceMilliseconds = fenceMilliseconds
    self.retryUnitMilliseconds = retryUnitMilliseconds
  }

  private func withConnection<T>(_ body: (PostgresConnection) throws(PostgresFailure) -> T)
    throws(PushRelayError)
    -> T
  {
    do throws(PostgresFailure) {
      return try connection.withLock { (connection) throws(PostgresFailure) in try body(connection) }
    } catch {
      throw error.relayError
    }
  }

  /// The time of this transaction: the database's, or the caller's.
  private func now(_ nowMilliseconds: Int64, on connection: PostgresConnection) throws(PostgresFailure)
    -> Int64
  {
    switch clock {
    case .caller: return nowMilliseconds
    case .database:
      return try connection.query(PostgresStatements.databaseNow).rows.first?.integer(0) ?? nowMilliseconds
    }
  }

  /// Inserts the candidates in one transaction; the first row per (origin, endpoint_hash, event
  /// id) wins.
  public func enqueue(_ candidates: [WakeCandidate], nowMilliseconds: Int64) throws(PushRelayError)
    -> [String]
  {
    try withConnection { (connection) throws(PostgresFailure) in
      try connection.transaction { () throws(PostgresFailure) -> (value: [String], commit: Bool) in
        let at = try now(nowMilliseconds, on: connection)
        return (try Self.insert(candidates, nowMilliseconds: at, on: connection), true)
      }
    }
  }

  /// Inserts inside the caller's transaction and, when a row was created, `NOTIFY push_wake`
  /// (delivered to the listeners when the transaction commits).
  static func insert(
    _ candidates: [WakeCandidate], nowMilliseconds: Int64, on connection: PostgresConnection
  ) throws(PostgresFailure) -> [String] {
    var created: [String] = []
    for candidate in candidates {
      var directAt: String?
      if candidate.directMessage {
        let address = [candidate.address.origin, candidate.address.pubkey, candidate.address.d]
        try connection.query(PostgresStatements.directLock, address)
        let queued =
          !(try connection.query(PostgresStatements.directQueued, address, maxRows: 1).rows.isEmpty)
        let limit = DirectMessageWakeBound.perWindow
        let recent = try connection.query(
          PostgresStatements.directRecent,
          address + [String(nowMilliseconds - DirectMessageWakeBound.windowMilliseconds), String(limit)],
          maxRows: limit
        ).rows.map { $0.integer(0) }
        switch DirectMessageWakeBound.decide(queued: queued, recent: recent, nowMilliseconds: nowMilliseconds)
        {
        case .coalesce: continue
        case .enqueue(let due): directAt = String(due)
        }
      }
      let requestID = WakeRequestID.generate()
      let inserted = try connection.query(
        PostgresStatements.insertWake,
        [
          requestID, candidate.address.origin, candidate.address.pubkey, candidate.address.d,
          String(candidate.generation), candidate.keyID, candidate.endpoint, candidate.endpointHash,
          candidate.transport, candidate.eventID, candidate.channel, candidate.pushClass,
          String(candidate.expiresAt), String(nowMilliseconds), directAt,
        ], maxRows: 1)
      if !inserted.rows.isEmpty { created.append(requestID) }
    }
    if let origin = candidates.first?.address.origin, !created.isEmpty {
      try connection.query(PostgresStatements.notifyWake, [origin])
    }
    return created
  }

  /// Claims up to `limit` (at most 16) due rows, earliest first, in one transaction, skipping rows
  /// another worker holds; an expired row, or one at the last attempt, fails instead.
  public func claim(nowMilliseconds: Int64, limit: Int = WakeSchedule.claimBatch) throws(PushRelayError)
    -> [Wake]
  {
    let limit = max(0, min(limit, WakeSchedule.claimBatch))
    guard limit > 0 else { return [] }
    let fence = fenceMilliseconds
    return try withConnection { (connection) throws(PostgresFailure) in
      try connection.transaction { () throws(PostgresFailure) -> (value: [Wake], commit: Bool) in
        let now = try now(nowMilliseconds, on: connection)
        let nowSeconds = UnixClock.seconds(now)
        var claimed: [Wake] = []
        while claimed.count < limit {
          let want = limit - claimed.count
          let parameters = [String(now), String(want)]
          let pending = try connection.query(PostgresStatements.duePending, parameters, maxRows: want).rows
          let fenced = try connection.query(PostgresStatements.fencedSending, parameters, maxRows: want).rows
          var due: [Wake] = []
          for row in pending + fenced { due.append(try Self.wake(row)) }
          due.sort { $0.dueAtMilliseconds < $1.dueAtMilliseconds }
          guard !due.isEmpty else { break }
          var failed: [String] = []
          var taken: [Wake] = []
          for var wake in due.prefix(want) {
            if wake.candidate.expiresAt <= nowSeconds || wake.attempts >= WakeSchedule.maxAttempts {
              failed.append(wake.requestID)
              continue
            }
            wake.state = .sending
            wake.attempts += 1
            wake.fenceMilliseconds = now + fence
            taken.append(wake)
          }
          if !failed.isEmpty { try connection.query(PostgresStatements.failWakes, [Self.array(failed)]) }
          if !taken.isEmpty {
            try connection.query(
              PostgresStatements.claimWakes, [Self.array(taken.map(\.requestID)), String(now + fence)])
          }
          claimed += taken
        }
        return (claimed, true)
      }
    }
  }

  /// Writes a batch of outcomes in one transaction, each only while its claim holds.
  public func record(_ results: [WakeResult], nowMilliseconds: Int64) throws(PushRelayError) -> [Bool] {
    guard !results.isEmpty else { return [] }
    let unit = retryUnitMilliseconds
    return try withConnection { (connection) throws(PostgresFailure) in
      try connection.transaction { () throws(PostgresFailure) -> (value: [Bool], commit: Bool) in
        let now = try now(nowMilliseconds, on: connection)
        var ids: [String?] = []
        var states: [String?] = []
        var nexts: [String?] = []
        var statuses: [String?] = []
        var attempts: [String?] = []
        // Only well-formed request ids go into the array literal; no row has any other.
        for result in results where WakeRequestID.isValid(result.wake.requestID) {
          let (state, next) = Self.next(after: result.outcome, of: result.wake, now: now, unit: unit)
          ids.append(result.wake.requestID)
          states.append(state.rawValue)
          nexts.append(String(next))
          statuses.append(result.status.map { String($0) })
          attempts.append(String(result.wake.attempts))
        }
        guard !ids.isEmpty else { return (results.map { _ in false }, true) }
        let written = try connection.query(
          PostgresStatements.recordWakes,
          [
            Self.array(ids), Self.array(states), Self.array(nexts), Self.array(statuses),
            Self.array(attempts),
            String(now),
          ], maxRows: results.count
        ).rows.compactMap { $0.text(0) }
        let writtenIDs = Set(written)
        return (results.map { writtenIDs.contains($0.wake.requestID) }, true)
      }
    }
  }

  /// A PostgreSQL array literal of `values` for one text parameter (`{a,b,NULL}`): the values are
  /// request ids, states and integers, which hold no character an array literal quotes.
  private static func array(_ values: [String?]) -> String {
    "{" + values.map { $0 ?? "NULL" }.joined(separator: ",") + "}"
  }

  private static func array(_ values: [String]) -> String { array(values.map { Optional($0) }) }

  /// `WakeSchedule.next` with the backoff's second as `unit` milliseconds.
  private static func next(after outcome: WakeOutcome, of wake: Wake, now: Int64, unit: Int64) -> (
    WakeState, Int64
  ) {
    guard case .retry(let base) = outcome, wake.attempts < WakeSchedule.maxAttempts else {
      return WakeSchedule.next(after: outcome, of: wake, nowMilliseconds: now)
    }
    let delay = WakeSchedule.retryDelayMilliseconds(attempts: wake.attempts, baseSeconds: base) / 1000 * unit
    return (.pending, now + delay)
  }

  /// In one process at a time: deletes wakes an hour past their expiry (the count returned),
  /// recorded events past the back-fill window, inactive leases a day past their expiry and the
  /// change log more than `keptChanges` behind; 0 when another process is sweeping.
  public func sweep(nowMilliseconds: Int64) throws(PushRelayError) -> Int {
    try withConnection { (connection) throws(PostgresFailure) in
      try connection.transaction { () throws(PostgresFailure) -> (value: Int, commit: Bool) in
        guard try connection.query(PostgresStatements.sweepLock).rows.first?.bool(0) == true else {
          return (0, true)
        }
        let now = UnixClock.seconds(try now(nowMilliseconds, on: connection))
        let wakes = try connection.query(
          PostgresStatements.sweepWakes, [String(now - WakeSchedule.retentionSeconds)]
        ).changed
        try connection.query(
          PostgresStatements.sweepRecent, [String(now - LeasePolicy.backfillWindowSeconds)])
        try connection.query(
          PostgresStatements.sweepInactive, [String(now - LeasePolicy.inactiveRetentionSeconds)])
        try connection.query(PostgresStatements.sweepChanges, [String(Self.keptChanges)])
        return (wakes, true)
      }
    }
  }

  /// Every row in enqueue order (at most 100 000), for tests and the demo.
  public func wakes() throws(PushRelayError) -> [Wake] {
    try withConnection { (connection) throws(PostgresFailure) in
      let rows = try connection.read { () throws(PostgresFailure) in
        try connection.query(
          PostgresStatements.allWakes, [String(Self.maxListedWakes)], maxRows: Self.maxListedWakes
        )
        .rows
      }
      var wakes: [Wake] = []
      for row in rows { wakes.append(try Self.wake(row)) }
      return wakes
    }
  }

  /// A `push_wake` row in `wakeColumns` order.
  private static func wake(_ row: PostgresRow) throws(PostgresFailure) -> Wake {
    guard let state = WakeState(rawValue: row.text(13) ?? "") else {
      throw PostgresFailure.local("push_wake.state: \(row.text(13) ?? "NULL") is not a state")
    }
    return Wake(row: row, state: state)
  }
}
