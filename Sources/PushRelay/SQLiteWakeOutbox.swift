import NostrPushCore
import _NostrSQLite

/// The `push_wake` table of a `PushStateDatabase`: the SQLite `WakeOutbox`.
///
/// It shares the lease store's connection and lock, so back-fill enqueues in the lease's own
/// transaction and a stored event's wakes commit with its record. `Sendable` because the database is.
public final class SQLiteWakeOutbox: WakeOutbox {
  /// The state file.
  package let database: PushStateDatabase

  /// An outbox on `database`.
  public init(database: PushStateDatabase) {
    self.database = database
  }

  /// Inserts the candidates in one transaction; `INSERT OR IGNORE` keeps the first row per
  /// (origin, endpoint_hash, event id).
  public func enqueue(_ candidates: [WakeCandidate], nowMilliseconds: Int64) throws(PushRelayError)
    -> [String]
  {
    try database.withConnection { connection throws(PushRelayError) in
      try connection.immediateTransaction { () throws(PushRelayError) in
        try Self.insert(candidates, nowMilliseconds: nowMilliseconds, on: connection)
      }
    }
  }

  /// Inserts inside the caller's transaction; a gift wrap's candidate is coalesced or deferred
  /// per lease (`DirectMessageWakeBound`), reading the rows this transaction sees.
  static func insert(
    _ candidates: [WakeCandidate], nowMilliseconds: Int64, on connection: PushStateConnection
  ) throws(PushRelayError) -> [String] {
    var created: [String] = []
    for candidate in candidates {
      var dueAt = nowMilliseconds
      var directAt: SQLiteValue = .null
      if candidate.directMessage {
        let address: [SQLiteValue] = [
          .text(candidate.address.origin), .text(candidate.address.pubkey), .text(candidate.address.d),
        ]
        let queued = try !connection.query(PushStatements.directQueued, address) { _ in true }.isEmpty
        let recent = try connection.query(
          PushStatements.directRecent,
          address + [
            .integer(nowMilliseconds - DirectMessageWakeBound.windowMilliseconds),
            .integer(Int64(DirectMessageWakeBound.perWindow)),
          ]
        ) { $0.integer(0) }
        switch DirectMessageWakeBound.decide(queued: queued, recent: recent, nowMilliseconds: nowMilliseconds)
        {
        case .coalesce: continue
        case .enqueue(let due):
          dueAt = due
          directAt = .integer(due)
        }
      }
      let requestID = WakeRequestID.generate()
      let changed = try connection.run(
        PushStatements.insertWake,
        [
          .text(requestID), .text(candidate.address.origin), .text(candidate.address.pubkey),
          .text(candidate.address.d), .integer(candidate.generation), .text(candidate.keyID),
          .text(candidate.endpoint), .text(candidate.endpointHash), .text(candidate.transport),
          .text(candidate.eventID), .text(candidate.channel), .text(candidate.pushClass),
          .integer(candidate.expiresAt), .integer(dueAt), directAt,
        ])
      if changed == 1 { created.append(requestID) }
    }
    return created
  }

  /// Claims up to `limit` (at most 16) due rows, earliest first, in one transaction: pending rows
  /// whose next attempt has come and sending rows whose fence passed, read in due order from their
  /// partial indexes; an expired row, or one at the last attempt, fails instead of being claimed.
  public func claim(nowMilliseconds: Int64, limit: Int = WakeSchedule.claimBatch) throws(PushRelayError)
    -> [Wake]
  {
    let nowSeconds = UnixClock.seconds(nowMilliseconds)
    let limit = max(0, min(limit, WakeSchedule.claimBatch))
    guard limit > 0 else { return [] }
    return try database.withConnection { connection throws(PushRelayError) in
      try connection.immediateTransaction { () throws(PushRelayError) in
        var claimed: [Wake] = []
        while claimed.count < limit {
          let want = Int64(limit - claimed.count)
          let pending = try connection.query(
            PushStatements.duePending, [.integer(nowMilliseconds), .integer(want)], Self.wake)
          let fenced = try connection.query(
            PushStatements.fencedSending, [.integer(nowMilliseconds), .integer(want)], Self.wake)
          let due = (pending + fenced).sorted { $0.dueAtMilliseconds < $1.dueAtMilliseconds }
          guard !due.isEmpty else { break }
          for var wake in due.prefix(Int(want)) {
            if wake.candidate.expiresAt <= nowSeconds || wake.attempts >= WakeSchedule.maxAttempts {
              try connection.run(PushStatements.failWake, [.text(wake.requestID)])
              continue
            }
            wake.state = .sending
            wake.attempts += 1
            wake.fenceMilliseconds = nowMilliseconds + WakeSchedule.fenceMilliseconds
            try connection.run(
              PushStatements.claimWake,
              [.integer(Int64(wake.attempts)), .integer(wake.fenceMilliseconds), .text(wake.requestID)])
            claimed.append(wake)
          }
        }
        return claimed
      }
    }
  }

  /// Writes a batch of outcomes in one transaction (one durable commit), each guarded as
  /// `record(_:for:status:nowMilliseconds:)` is.
  public func record(_ results: [WakeResult], nowMilliseconds: Int64) throws(PushRelayError) -> [Bool] {
    guard !results.isEmpty else { return [] }
    return try database.withConnection { connection throws(PushRelayError) in
      try connection.immediateTransaction { () throws(PushRelayError) -> [Bool] in
        var written: [Bool] = []
        for result in results {
          let (state, next) = WakeSchedule.next(
            after: result.outcome, of: result.wake, nowMilliseconds: nowMilliseconds)
          let changed = try connection.run(
            PushStatements.recordWake,
            [
              .text(state.rawValue), .integer(next), result.status.map { .integer(Int64($0)) } ?? .null,
              .text(result.wake.requestID), .integer(Int64(result.wake.attempts)), .integer(nowMilliseconds),
            ])
          written.append(changed == 1)
        }
        return written
      }
    }
  }

  /// Deletes rows whose expiry passed an hour ago.
  public func sweep(nowMilliseconds: Int64) throws(PushRelayError) -> Int {
    try database.withConnection { connection throws(PushRelayError) in
      try connection.run(
        "DELETE FROM push_wake WHERE expires_at + ? <= ?",
        [.integer(WakeSchedule.retentionSeconds), .integer(UnixClock.seconds(nowMilliseconds))])
    }
  }

  /// Every row in insertion order.
  public func wakes() throws(PushRelayError) -> [Wake] {
    try database.withConnection { connection throws(PushRelayError) in
      try connection.query(
        "SELECT \(PushStatements.wakeColumns) FROM push_wake ORDER BY rowid", [], Self.wake)
    }
  }

  /// A row; a state that is not one reads as `failed` (never claimed again).
  private static func wake(_ row: SQLiteRow) -> Wake {
    Wake(row: row, state: WakeState(rawValue: row.text(13) ?? "") ?? .failed)
  }
}
