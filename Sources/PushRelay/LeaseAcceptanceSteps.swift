import NostrEvent
import PushLease

/// The lease acceptance table (`Docs/VendoringPushRelay.md`), steps 1–7 with the row bound, and
/// the back-fill's read, written once over the dialect seam (`LeaseSQLConnection`). Each store runs
/// them inside its own transaction (SQLite's `BEGIN IMMEDIATE`; PostgreSQL's under the author's
/// advisory lock), so a result other than `.accepted` rolls everything back.
package enum LeaseAcceptanceSteps {
  /// Applies steps 1–7 to `lease` at `address` on `connection`; anything but `.accepted` must roll
  /// the caller's transaction back.
  package static func apply<Connection: LeaseSQLConnection>(
    _ lease: OpenedLease, address: LeaseAddress, event: Event, maxLeases: Int, now: Int64,
    on connection: Connection
  ) throws(Connection.Failure) -> LeaseAcceptance {
    let statements = connection.leaseStatements
    let origin = LeaseSQLValue.text(address.origin)
    let pubkey = LeaseSQLValue.text(address.pubkey)
    // 1: the event id is already some address's current event.
    let holders = try connection.select(statements.eventHolder, [origin, .text(lease.eventID)], maxRows: 1) {
      row throws(Connection.Failure) in (row.string(0) ?? "", row.string(1) ?? "")
    }
    if let holder = holders.first {
      if holder.0 == address.pubkey && holder.1 == address.d { return .duplicate }
      return .rejected(LeaseRefusal(store: .sourceEventCollision).message)
    }
    let existing = try row(address, on: connection)
    if let existing {
      // 2: the event must supersede the stored one (NIP-01, `Event.supersedes`).
      let follows = Event.supersedes(
        createdAt: lease.createdAt, id: lease.eventID, overCreatedAt: existing.createdAt, id: existing.eventID
      )
      guard follows else { return .rejected(LeaseRefusal(store: .staleReplacement).message) }
      // 3: the generation must rise.
      guard lease.generation > existing.generation else {
        return .rejected(LeaseRefusal(store: .staleGeneration).message)
      }
    }
    // 4: sweep the author's expired active rows; prune inactive rows a day past their expiry.
    try connection.write(statements.sweepAuthor, [origin, pubkey, .integer(now)])
    try connection.write(
      statements.pruneAuthor, [origin, pubkey, .integer(now - LeasePolicy.inactiveRetentionSeconds)])
    // Rows are bounded: a new address past 4 × max_leases rows of the author is refused.
    if existing == nil {
      let rows = try count(statements.authorRows, [origin, pubkey], on: connection)
      guard rows < Int64(LeasePolicy.rowsPerLeaseQuota) * Int64(maxLeases) else {
        return .rejected(LeaseRefusal(store: .leaseQuotaExceeded).message)
      }
    }
    var values: [LeaseSQLValue] = [
      origin, pubkey, .text(address.d), .text(lease.eventID), .integer(lease.createdAt),
      .integer(lease.expiration), .text(lease.keyID), .integer(lease.generation),
    ]
    switch lease.state {
    case .active(let profile, let transport, let endpoint, let endpointHash, let subscriptions):
      let appProfile = profile ?? ""  // buzz-push-v1: the empty string, never NULL (unique index, `= ?`)
      // 5: quota over the author's other active addresses.
      let others = try count(statements.quota, [origin, pubkey, .text(address.d)], on: connection)
      guard others < Int64(maxLeases) else {
        return .rejected(LeaseRefusal(store: .leaseQuotaExceeded).message)
      }
      // 6: one active address per (app profile, endpoint).
      let clash = try count(
        statements.endpointClash,
        [origin, pubkey, .text(address.d), .text(appProfile), .text(endpointHash)], on: connection)
      guard clash == 0 else { return .rejected(LeaseRefusal(store: .endpointAlreadyLeased).message) }
      values += [
        .flag(true), .flag(true), .text(appProfile), .text(transport), .text(endpoint), .text(endpointHash),
        .text(StoredSubscriptions.encode(subscriptions)),
      ]
    case .tombstone:
      values += [.flag(false), .flag(false), .null, .null, .null, .null, .null]
    }
    values.append(.json(event.jsonBytes()))
    // 7: upsert; a constraint failure is the lease's fault, not storage's.
    do throws(Connection.Failure) {
      try connection.write(statements.upsertLease, values)
    } catch {
      guard let refusal = connection.refusal(for: error) else { throw error }
      return .rejected(LeaseRefusal(store: refusal).message)
    }
    return .accepted
  }

  /// The row of `address`, lease or tombstone.
  package static func row<Connection: LeaseSQLConnection>(_ address: LeaseAddress, on connection: Connection)
    throws(Connection.Failure) -> StoredLease?
  {
    try leases(
      connection.leaseStatements.leaseRow, [.text(address.origin), .text(address.pubkey), .text(address.d)],
      maxRows: 1, on: connection
    ).first
  }

  /// The leases `sql` answers (its columns `LeaseStatements.leaseColumns`), at most `maxRows`.
  package static func leases<Connection: LeaseSQLConnection>(
    _ sql: String, _ values: [LeaseSQLValue], maxRows: Int, on connection: Connection
  ) throws(Connection.Failure) -> [StoredLease] {
    try connection.select(sql, values, maxRows: maxRows) { row throws(Connection.Failure) -> StoredLease in
      do throws(PushRelayError) {
        return try StoredLease(row: row)
      } catch {
        throw connection.failure(error)
      }
    }
  }

  /// The back-fill of an accepted active lease: the recorded events of the back-fill window (newest
  /// first, at most `LeasePolicy.maxBackfillCandidates`) that wake it; the caller enqueues them in
  /// the accept's transaction.
  package static func backfill<Connection: LeaseSQLConnection>(
    _ lease: StoredLease, roster: any RosterSource, now: Int64, matcher: PushMatcher,
    on connection: Connection
  ) throws(Connection.Failure) -> [WakeCandidate] {
    let origin = lease.address.origin
    let recent = try connection.select(
      connection.leaseStatements.recentCandidates,
      [
        .text(origin), .integer(now - LeasePolicy.backfillWindowSeconds),
        .integer(Int64(LeasePolicy.maxBackfillCandidates)),
      ], maxRows: LeasePolicy.maxBackfillCandidates
    ) { row throws(Connection.Failure) in (row.int64(0), row.bytes(1) ?? []) }
    var wakes: [WakeCandidate] = []
    for (receivedAt, bytes) in recent {
      guard let candidate = try? Event(json: bytes),
        let reading = matcher.read(candidate, roster: roster, origin: origin),
        let wake = matcher.candidate(
          for: candidate, lease: lease, reading: reading, receivedAt: receivedAt, now: now)
      else { continue }
      wakes.append(wake)
    }
    return wakes
  }

  private static func count<Connection: LeaseSQLConnection>(
    _ sql: String, _ values: [LeaseSQLValue], on connection: Connection
  ) throws(Connection.Failure) -> Int64 {
    try connection.select(sql, values, maxRows: 1) { row throws(Connection.Failure) in row.int64(0) }.first
      ?? 0
  }
}

extension StoredLease {
  /// A `push_lease` row in `LeaseStatements.leaseColumns` order, from either backend; stored
  /// subscriptions that do not parse are `corrupt_row`.
  package init(row: some LeaseSQLRow) throws(PushRelayError) {
    var subscriptions: [LeaseSubscription] = []
    if let text = row.string(14) { subscriptions = try StoredSubscriptions.decode(text) }
    self.init(
      address: LeaseAddress(origin: row.string(0) ?? "", pubkey: row.string(1) ?? "", d: row.string(2) ?? ""),
      eventID: row.string(3) ?? "", createdAt: row.int64(4), expiresAt: row.int64(5),
      keyID: row.string(6) ?? "",
      generation: row.int64(7), active: row.flag(8), endpointEnabled: row.flag(9),
      appProfile: row.string(10), transport: row.string(11), endpoint: row.string(12),
      endpointHash: row.string(13), subscriptions: subscriptions, eventJSON: row.bytes(15) ?? [])
  }
}
