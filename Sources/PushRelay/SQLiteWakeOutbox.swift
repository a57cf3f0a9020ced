import _NostrSQLite

/// The `push_wake` table of a `PushStateDatabase`: the SQLite `WakeOutbox`.
///
/// It shares the lease store's connection and lock, so back-fill enqueues in the lease's own
/// transaction. `Sendable` because the database is.
public final class SQLiteWakeOutbox: WakeOutbox {
  /// The state file.
  public let database: PushStateDatabase

  /// An outbox on `database`.
  public init(database: PushStateDatabase) {
    self.database = database
  }

  static let columns = """
    request_id, origin, pubkey, d, generation, key_id, endpoint, endpoint_hash, transport, event_id,
    channel, class, expires_at, state, attempts, next_attempt_ms, fence_ms, last_status
    """

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

  /// Inserts inside the caller's transaction.
  static func insert(
    _ candidates: [WakeCandidate], nowMilliseconds: Int64, on connection: PushStateConnection
  ) throws(PushRelayError) -> [String] {
    var created: [String] = []
    for candidate in candidates {
      let requestID = WakeRequestID.generate()
      let changed = try connection.run(
        """
        INSERT OR IGNORE INTO push_wake (\(Self.columns))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, 0, NULL)
        """,
        [
          .text(requestID), .text(candidate.address.origin), .text(candidate.address.pubkey),
          .text(candidate.address.d), .integer(candidate.generation), .text(candidate.keyID),
          .text(candidate.endpoint), .text(candidate.endpointHash), .text(candidate.transport),
          .text(candidate.eventID), .text(candidate.channel), .text(candidate.pushClass),
          .integer(candidate.expiresAt), .integer(nowMilliseconds),
        ])
      if changed == 1 { created.append(requestID) }
    }
    return created
  }

  /// Fails expired and fenced-out rows, then claims up to `limit` (at most 16) due rows, earliest
  /// first, in one transaction.
  public func claim(nowMilliseconds: Int64, limit: Int = WakeSchedule.claimBatch) throws(PushRelayError)
    -> [Wake]
  {
    let nowSeconds = Self.seconds(nowMilliseconds)
    return try database.withConnection { connection throws(PushRelayError) in
      try connection.immediateTransaction { () throws(PushRelayError) in
        try connection.run(
          """
          UPDATE push_wake SET state = 'failed'
          WHERE (state = 'pending' AND (expires_at <= ? OR attempts >= ?))
             OR (state = 'sending' AND fence_ms <= ? AND (expires_at <= ? OR attempts >= ?))
          """,
          [
            .integer(nowSeconds), .integer(Int64(WakeSchedule.maxAttempts)), .integer(nowMilliseconds),
            .integer(nowSeconds), .integer(Int64(WakeSchedule.maxAttempts)),
          ])
        let due = try connection.query(
          """
          SELECT \(Self.columns) FROM push_wake
          WHERE expires_at > ? AND attempts < ?
            AND ((state = 'pending' AND next_attempt_ms <= ?) OR (state = 'sending' AND fence_ms <= ?))
          ORDER BY CASE state WHEN 'pending' THEN next_attempt_ms ELSE fence_ms END, rowid
          LIMIT ?
          """,
          [
            .integer(nowSeconds), .integer(Int64(WakeSchedule.maxAttempts)), .integer(nowMilliseconds),
            .integer(nowMilliseconds), .integer(Int64(max(0, min(limit, WakeSchedule.claimBatch)))),
          ], Self.wake)
        var claimed: [Wake] = []
        for var wake in due {
          wake.state = .sending
          wake.attempts += 1
          wake.fenceMilliseconds = nowMilliseconds + WakeSchedule.fenceMilliseconds
          try connection.run(
            "UPDATE push_wake SET state = 'sending', attempts = ?, fence_ms = ? WHERE request_id = ?",
            [.integer(Int64(wake.attempts)), .integer(wake.fenceMilliseconds), .text(wake.requestID)])
          claimed.append(wake)
        }
        return claimed
      }
    }
  }

  /// Writes the outcome with a guarded `UPDATE` (same attempts, `sending`, fence ahead of now).
  public func record(
    _ outcome: WakeOutcome, for wake: Wake, status: Int?, nowMilliseconds: Int64
  ) throws(PushRelayError) -> Bool {
    let state: WakeState
    var next = wake.nextAttemptMilliseconds
    switch outcome {
    case .delivered: state = .delivered
    case .failed: state = .failed
    case .retry(let base):
      if wake.attempts >= WakeSchedule.maxAttempts {
        state = .failed
      } else {
        state = .pending
        next =
          nowMilliseconds + WakeSchedule.retryDelayMilliseconds(attempts: wake.attempts, baseSeconds: base)
      }
    }
    return try database.withConnection { connection throws(PushRelayError) in
      try connection.run(
        """
        UPDATE push_wake SET state = ?, next_attempt_ms = ?, last_status = ?
        WHERE request_id = ? AND state = 'sending' AND attempts = ? AND fence_ms > ?
        """,
        [
          .text(state.rawValue), .integer(next), status.map { .integer(Int64($0)) } ?? .null,
          .text(wake.requestID), .integer(Int64(wake.attempts)), .integer(nowMilliseconds),
        ]) == 1
    }
  }

  /// Deletes rows whose expiry passed an hour ago.
  public func sweep(nowMilliseconds: Int64) throws(PushRelayError) -> Int {
    try database.withConnection { connection throws(PushRelayError) in
      try connection.run(
        "DELETE FROM push_wake WHERE expires_at + ? <= ?",
        [.integer(WakeSchedule.retentionSeconds), .integer(Self.seconds(nowMilliseconds))])
    }
  }

  /// Every row in insertion order.
  public func wakes() throws(PushRelayError) -> [Wake] {
    try database.withConnection { connection throws(PushRelayError) in
      try connection.query("SELECT \(Self.columns) FROM push_wake ORDER BY rowid", [], Self.wake)
    }
  }

  /// Unix seconds of a Unix-millisecond instant (floor).
  package static func seconds(_ milliseconds: Int64) -> Int64 {
    milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
  }

  private static func wake(_ row: SQLiteRow) -> Wake {
    let candidate = WakeCandidate(
      address: LeaseAddress(origin: row.text(1) ?? "", pubkey: row.text(2) ?? "", d: row.text(3) ?? ""),
      generation: row.integer(4), keyID: row.text(5) ?? "", endpoint: row.text(6) ?? "",
      endpointHash: row.text(7) ?? "", transport: row.text(8) ?? "", eventID: row.text(9) ?? "",
      channel: row.text(10), pushClass: row.text(11) ?? "", expiresAt: row.integer(12))
    return Wake(
      requestID: row.text(0) ?? "", candidate: candidate,
      state: WakeState(rawValue: row.text(13) ?? "") ?? .failed,
      attempts: Int(row.integer(14)), nextAttemptMilliseconds: row.integer(15),
      fenceMilliseconds: row.integer(16),
      lastStatus: row.text(17).flatMap { Int($0) })
  }
}
