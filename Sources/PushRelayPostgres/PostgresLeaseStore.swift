import NostrEvent
import NostrPushCore
import PushDescriptor
import PushLease
import PushRelay
import _NostrPostgres

/// The PostgreSQL `LeaseStore`: leases, recorded events and their wakes in a database several relay
/// processes share, each (event, lease) pair meeting the matcher exactly once across them
/// (`Docs/VendoringPushRelay.md`, "PostgreSQL").
///
/// - `accept` takes a transaction-scoped advisory lock on (origin, pubkey) — serializable per
///   author — and, for an active lease, the origin's gate lock exclusively; it applies the
///   acceptance table in order (a rejection rolls everything back), logs the change of the live
///   set in `push_lease_change`, and back-fills from `push_recent_event` (what every process's
///   `didStore` recorded, not this process's memory) in the same transaction.
/// - `didStore` takes the gate shared, records the event, brings this process's live index up to
///   date from the change log, matches and enqueues (with `NOTIFY push_wake`) in one transaction.
///   So either the event committed first and the accept's back-fill finds it, or the lease
///   committed first and the matcher sees it; the outbox's unique (origin, endpoint, event) keeps
///   one wake even if both did.
/// - A lock timeout (500 ms), deadlock or serialization failure runs the transaction again, at
///   most three times, then throws `storage` (the relay answers `error: internal server error`).
///
/// The live index of each origin is a `LeaseIndex`, updated by address from the change log; a full
/// reload only when this process has fallen behind the pruned log. One connection, used under this
/// object's lock. `@unchecked Sendable`: the connection and the indexes are touched only inside
/// `state.withLock`.
public final class PostgresLeaseStore: LeaseStore, PushProtocolBinding, @unchecked Sendable {
  /// The most changes read at once; a process further behind reloads its index whole.
  package static let maxChangesRead = 1000
  /// The most live leases one origin's index is read with.
  package static let maxLiveLeases = 1_000_000
  /// The most current events one author has at an origin (4 × the largest quota, with room).
  private static let maxAuthorRows = 4096

  private struct OriginIndex {
    var index = LeaseIndex()
    var sequence: Int64 = -1
  }

  private struct State {
    var connection: PostgresConnection
    var indexes: [String: OriginIndex] = [:]
  }

  private let state: Locked<State>
  private let matcher = PushMatcher()

  /// A store with a connection of its own to `database`.
  public init(database: PostgresDatabase) throws(PushRelayError) {
    state = Locked(State(connection: try database.connect()))
  }

  private func withState<T>(_ body: (inout State) throws(PostgresFailure) -> T) throws(PushRelayError) -> T {
    do throws(PostgresFailure) {
      return try state.withLock { (state) throws(PostgresFailure) in try body(&state) }
    } catch {
      throw error.relayError
    }
  }

  // MARK: accept

  /// Applies the acceptance table under the author's advisory lock (and the origin's gate for an
  /// active lease), logs the change and back-fills, in one transaction; a rejection rolls back.
  public func accept(
    _ lease: OpenedLease, event: Event, maxLeases: Int, roster: any RosterSource, now: Int64
  ) throws(PushRelayError) -> LeaseAcceptance {
    let address = LeaseAddress(origin: lease.origin, lease: lease.address)
    let matcher = self.matcher
    return try withState { (state) throws(PostgresFailure) -> LeaseAcceptance in
      let connection = state.connection
      return try connection.transaction {
        () throws(PostgresFailure) -> (value: LeaseAcceptance, commit: Bool) in
        try connection.query(PostgresStatements.authorLock, [address.origin, address.pubkey])
        if case .active = lease.state {
          try connection.query(PostgresStatements.gateExclusive, [address.origin])
        }
        let outcome = try Self.apply(
          lease, address: address, event: event, maxLeases: maxLeases, now: now, on: connection)
        guard outcome == .accepted else { return (outcome, false) }
        let sequence =
          try connection.query(PostgresStatements.nextChange, [address.origin]).rows.first?
          .integer(0) ?? 0
        try connection.query(
          PostgresStatements.logChange, [address.origin, String(sequence), address.pubkey, address.d])
        if case .active = lease.state, let row = try Self.row(address, on: connection) {
          let wakes = try Self.backfill(row, roster: roster, now: now, matcher: matcher, on: connection)
          _ = try PostgresWakeOutbox.insert(wakes, nowMilliseconds: now * 1000, on: connection)
        }
        return (.accepted, true)
      }
    }
  }

  /// Steps 1–7 of the acceptance table, with the row bound, inside the transaction.
  private static func apply(
    _ lease: OpenedLease, address: LeaseAddress, event: Event, maxLeases: Int, now: Int64,
    on connection: PostgresConnection
  ) throws(PostgresFailure) -> LeaseAcceptance {
    let origin = address.origin
    let pubkey = address.pubkey
    // 1: the event id is already some address's current event.
    if let holder = try connection.query(PostgresStatements.eventHolder, [origin, lease.eventID]).rows.first {
      if holder.text(0) == address.pubkey && holder.text(1) == address.d { return .duplicate }
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
    try connection.query(PostgresStatements.sweepAuthor, [origin, pubkey, String(now)])
    try connection.query(
      PostgresStatements.pruneAuthor,
      [origin, pubkey, String(now - SQLiteLeaseStore.inactiveRetentionSeconds)])
    if existing == nil {
      let rows =
        try connection.query(PostgresStatements.authorRows, [origin, pubkey]).rows.first?.integer(0) ?? 0
      guard rows < Int64(SQLiteLeaseStore.rowsPerLeaseQuota) * Int64(maxLeases) else {
        return .rejected(LeaseRefusal(store: .leaseQuotaExceeded).message)
      }
    }
    var values: [String?] = [
      origin, pubkey, address.d, lease.eventID, String(lease.createdAt), String(lease.expiration),
      lease.keyID,
      String(lease.generation),
    ]
    switch lease.state {
    case .active(let profile, let transport, let endpoint, let endpointHash, let subscriptions):
      let appProfile = profile ?? ""  // buzz-push-v1: the empty string, never NULL, as in SQLite
      // 5: quota over the author's other active addresses.
      let others =
        try connection.query(PostgresStatements.quota, [origin, pubkey, address.d]).rows.first?.integer(0)
        ?? 0
      guard others < Int64(maxLeases) else {
        return .rejected(LeaseRefusal(store: .leaseQuotaExceeded).message)
      }
      // 6: one active address per (app profile, endpoint).
      let clash =
        try connection.query(
          PostgresStatements.endpointClash, [origin, pubkey, address.d, appProfile, endpointHash]
        ).rows.first?.integer(0) ?? 0
      guard clash == 0 else { return .rejected(LeaseRefusal(store: .endpointAlreadyLeased).message) }
      values += [
        "t", "t", appProfile, transport, endpoint, endpointHash, StoredSubscriptions.encode(subscriptions),
      ]
    case .tombstone:
      values += ["f", "f", nil, nil, nil, nil, nil]
    }
    values.append(String(decoding: event.jsonBytes(), as: UTF8.self))
    // 7: upsert; a constraint failure is the lease's fault, not storage's (the endpoint index:
    // another transaction leased the endpoint first).
    do throws(PostgresFailure) {
      try connection.query(PostgresStatements.upsertLease, values)
    } catch {
      guard error.isConstraint else { throw error }
      if error.sqlState == "23505" && error.constraint == "push_lease_endpoint" {
        return .rejected(LeaseRefusal(store: .endpointAlreadyLeased).message)
      }
      return .rejected(LeaseRefusal(store: .leaseConstraintViolation).message)
    }
    return .accepted
  }

  /// The back-fill of an accepted active lease: the recorded events of the last 120 s (newest
  /// first, at most 256) that wake it.
  private static func backfill(
    _ lease: StoredLease, roster: any RosterSource, now: Int64, matcher: PushMatcher,
    on connection: PostgresConnection
  ) throws(PostgresFailure) -> [WakeCandidate] {
    let origin = lease.address.origin
    let recent = try connection.query(
      PostgresStatements.recentCandidates,
      [
        origin, String(now - PushMatcher.backfillWindowSeconds), String(PushMatcher.maxBackfillCandidates),
      ], maxRows: PushMatcher.maxBackfillCandidates
    ).rows
    var wakes: [WakeCandidate] = []
    for row in recent {
      guard let candidate = try? Event(json: Array((row.text(1) ?? "").utf8)),
        let reading = matcher.read(candidate, roster: roster, origin: origin),
        let wake = matcher.candidate(
          for: candidate, lease: lease, reading: reading, receivedAt: row.integer(0), now: now)
      else { continue }
      wakes.append(wake)
    }
    return wakes
  }

  // MARK: didStore

  /// Records `event` under the origin's gate (shared), brings the live index up to date from the
  /// change log, matches and enqueues in one transaction; an event already recorded enqueues
  /// nothing.
  public func didStore(
    _ event: Event, origin: String, receivedAt: Int64, roster: any RosterSource, now: Int64
  ) throws(PushRelayError) -> Int {
    let matcher = self.matcher
    return try withState { (state) throws(PostgresFailure) -> Int in
      let connection = state.connection
      return try connection.transaction { () throws(PostgresFailure) -> (value: Int, commit: Bool) in
        try connection.query(PostgresStatements.gateShared, [origin])
        let recorded = try connection.query(
          PostgresStatements.insertRecent,
          [
            origin, event.id, String(event.kind), String(receivedAt),
            String(decoding: event.jsonBytes(), as: UTF8.self),
          ])
        guard !recorded.rows.isEmpty else { return (0, true) }
        guard let reading = matcher.read(event, roster: roster, origin: origin) else { return (0, true) }
        try Self.refresh(&state.indexes, origin: origin, now: now, on: connection)
        var wakes: [WakeCandidate] = []
        if state.indexes[origin] != nil {
          // In place: a copy of the index would copy its arrays on the first mutation.
          state.indexes[origin]!.index.removeExpired(now: now)
          wakes = matcher.candidates(
            for: event, index: &state.indexes[origin]!.index, reading: reading, receivedAt: receivedAt,
            now: now)
        }
        let created = try PostgresWakeOutbox.insert(wakes, nowMilliseconds: now * 1000, on: connection)
        return (created.count, true)
      }
    }
  }

  // MARK: The live index

  /// Brings the index of `origin` up to the change log: reads the changes since the last sequence
  /// seen and re-reads those addresses; builds the index on first use and rebuilds it only when
  /// this process fell behind the pruned log.
  private static func refresh(
    _ indexes: inout [String: OriginIndex], origin: String, now: Int64, on connection: PostgresConnection
  ) throws(PostgresFailure) {
    let version = try connection.query(PostgresStatements.leaseVersion, [origin]).rows.first?.integer(0) ?? 0
    var entry = indexes[origin] ?? OriginIndex()
    if entry.sequence == version { return }
    if entry.sequence >= 0 && entry.sequence < version {
      let changes = try connection.query(
        PostgresStatements.changesSince, [origin, String(entry.sequence), String(maxChangesRead)],
        maxRows: maxChangesRead
      ).rows
      let contiguous = changes.first?.integer(0) == entry.sequence + 1 && changes.count < maxChangesRead
      if contiguous {
        var seen: Set<LeaseAddress> = []
        for change in changes {
          let address = LeaseAddress(origin: origin, pubkey: change.text(1) ?? "", d: change.text(2) ?? "")
          guard seen.insert(address).inserted else { continue }
          if let row = try row(address, on: connection) {
            entry.index.update(row)
          } else {
            entry.index.remove(address)
          }
        }
        entry.sequence = changes.last?.integer(0) ?? entry.sequence
        indexes[origin] = entry
        return
      }
    }
    // First use, or behind the pruned log: read the live set whole, allowed longer than one
    // statement's 1500 ms (100 000 leases), inside the caller's transaction.
    try connection.execute("SET LOCAL statement_timeout = '60s'")
    let rows = try connection.query(
      PostgresStatements.liveLeases, [origin, String(now)], maxRows: maxLiveLeases
    ).rows
    var index = LeaseIndex()
    for row in rows { index.update(try lease(row)) }
    indexes[origin] = OriginIndex(index: index, sequence: version)
  }

  /// The active, enabled, unexpired leases of `origin`, from the live index brought up to date.
  public func liveLeases(origin: String, now: Int64) throws(PushRelayError) -> [StoredLease] {
    try withState { (state) throws(PostgresFailure) -> [StoredLease] in
      let connection = state.connection
      try connection.transaction { () throws(PostgresFailure) -> (value: Void, commit: Bool) in
        try Self.refresh(&state.indexes, origin: origin, now: now, on: connection)
        return ((), true)
      }
      state.indexes[origin]?.index.removeExpired(now: now)
      return state.indexes[origin]?.index.leases ?? []
    }
  }

  // MARK: Reads and the 410 switch

  /// The current event of each of `pubkey`'s addresses at `origin`, newest first (ties: lower id).
  public func currentEvents(origin: String, pubkey: String) throws(PushRelayError) -> [Event] {
    let texts = try withState { (state) throws(PostgresFailure) -> [String] in
      let connection = state.connection
      return try connection.read { () throws(PostgresFailure) in
        try connection.query(PostgresStatements.currentEvents, [origin, pubkey], maxRows: Self.maxAuthorRows)
          .rows.map { $0.text(0) ?? "" }
      }
    }
    var events: [Event] = []
    for text in texts { events.append(try StoredLease.event(stored: Array(text.utf8))) }
    return events
  }

  /// Clears the endpoint only while the row has the wake's generation and endpoint hash, and logs
  /// the change, in one transaction.
  public func disableEndpoint(
    address: LeaseAddress, generation: Int64, endpointHash: String
  ) throws(PushRelayError) -> Bool {
    try withState { (state) throws(PostgresFailure) -> Bool in
      let connection = state.connection
      return try connection.transaction { () throws(PostgresFailure) -> (value: Bool, commit: Bool) in
        let changed = try connection.query(
          PostgresStatements.disableEndpoint,
          [address.origin, address.pubkey, address.d, String(generation), endpointHash]
        ).changed
        guard changed > 0 else { return (false, true) }
        let sequence =
          try connection.query(PostgresStatements.nextChange, [address.origin]).rows.first?.integer(0) ?? 0
        try connection.query(
          PostgresStatements.logChange, [address.origin, String(sequence), address.pubkey, address.d])
        return (true, true)
      }
    }
  }

  /// The row of `address`, lease or tombstone.
  public func lease(at address: LeaseAddress) throws(PushRelayError) -> StoredLease? {
    try withState { (state) throws(PostgresFailure) -> StoredLease? in
      let connection = state.connection
      return try connection.read { () throws(PostgresFailure) in try Self.row(address, on: connection) }
    }
  }

  /// Records `pushProtocol` for `origin` under the origin's gate (so no accept runs meanwhile):
  /// switched only while the origin has no rows, else `invalid_configuration` (field
  /// `nip11.json`), as `SQLiteLeaseStore` does.
  package func bindProtocol(_ pushProtocol: PushProtocol, origin: String) throws(PushRelayError) {
    let refusal = try withState { (state) throws(PostgresFailure) -> PushRelayError? in
      let connection = state.connection
      return try connection.transaction {
        () throws(PostgresFailure) -> (value: PushRelayError?, commit: Bool) in
        try connection.query(PostgresStatements.gateExclusive, [origin])
        let recorded = try connection.query(PostgresStatements.originProtocol, [origin]).rows.first?.text(0)
        guard recorded != pushProtocol.rawValue else { return (nil, true) }
        if let recorded,
          try connection.query(PostgresStatements.originHasLeases, [origin]).rows.first?.bool(0) == true
        {
          return (Self.mismatch(recorded: recorded, started: pushProtocol, origin: origin), false)
        }
        try connection.query(PostgresStatements.bindProtocol, [origin, pushProtocol.rawValue])
        return (nil, true)
      }
    }
    if let refusal { throw refusal }
  }

  /// The generation recorded for `origin`, nil before a relay bound one.
  package func recordedProtocol(origin: String) throws(PushRelayError) -> PushProtocol? {
    try withState { (state) throws(PostgresFailure) -> PushProtocol? in
      let connection = state.connection
      return try connection.read { () throws(PostgresFailure) in
        try connection.query(PostgresStatements.originProtocol, [origin]).rows.first?.text(0)
      }.flatMap { PushProtocol(rawValue: $0) }
    }
  }

  /// Every row of `origin` (leases and tombstones, live or not), for tests and inspection.
  package func allLeases(origin: String) throws(PushRelayError) -> [StoredLease] {
    try withState { (state) throws(PostgresFailure) -> [StoredLease] in
      try state.connection.ensureConnected()
      var leases: [StoredLease] = []
      for row in try state.connection.query(
        "SELECT \(PostgresStatements.leaseColumns) FROM push_lease WHERE origin = $1 ORDER BY pubkey, d",
        [origin],
        maxRows: Self.maxLiveLeases
      ).rows {
        leases.append(try Self.lease(row))
      }
      return leases
    }
  }

  /// Runs `body` on this store's connection under its lock (tests read plans and break tables).
  package func withConnection<T>(_ body: (PostgresConnection) throws(PostgresFailure) -> T)
    throws(PushRelayError)
    -> T
  {
    try withState { (state) throws(PostgresFailure) -> T in
      try state.connection.ensureConnected()
      return try body(state.connection)
    }
  }

  // MARK: Rows

  private static func row(_ address: LeaseAddress, on connection: PostgresConnection) throws(PostgresFailure)
    -> StoredLease?
  {
    guard
      let row = try connection.query(
        PostgresStatements.leaseRow, [address.origin, address.pubkey, address.d], maxRows: 1
      ).rows.first
    else { return nil }
    return try lease(row)
  }

  /// A `push_lease` row in `leaseColumns` order.
  package static func lease(_ row: PostgresRow) throws(PostgresFailure) -> StoredLease {
    var subscriptions: [LeaseSubscription] = []
    if let text = row.text(14) {
      do throws(PushRelayError) {
        subscriptions = try StoredSubscriptions.decode(text)
      } catch {
        throw PostgresFailure.local("push_lease.subscriptions: \(error.message)")
      }
    }
    return StoredLease(
      address: LeaseAddress(origin: row.text(0) ?? "", pubkey: row.text(1) ?? "", d: row.text(2) ?? ""),
      eventID: row.text(3) ?? "", createdAt: row.integer(4), expiresAt: row.integer(5),
      keyID: row.text(6) ?? "",
      generation: row.integer(7), active: row.bool(8), endpointEnabled: row.bool(9), appProfile: row.text(10),
      transport: row.text(11), endpoint: row.text(12), endpointHash: row.text(13),
      subscriptions: subscriptions,
      eventJSON: Array((row.text(15) ?? "").utf8))
  }
}
