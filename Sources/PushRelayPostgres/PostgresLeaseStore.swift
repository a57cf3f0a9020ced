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
        let outcome = try LeaseAcceptanceSteps.apply(
          lease, address: address, event: event, maxLeases: maxLeases, now: now, on: connection)
        guard outcome == .accepted else { return (outcome, false) }
        let sequence =
          try connection.query(PostgresStatements.nextChange, [address.origin]).rows.first?
          .integer(0) ?? 0
        try connection.query(
          PostgresStatements.logChange, [address.origin, String(sequence), address.pubkey, address.d])
        if case .active = lease.state, let row = try LeaseAcceptanceSteps.row(address, on: connection) {
          let wakes = try LeaseAcceptanceSteps.backfill(
            row, roster: roster, now: now, matcher: matcher, on: connection)
          _ = try PostgresWakeOutbox.insert(wakes, nowMilliseconds: now * 1000, on: connection)
        }
        return (.accepted, true)
      }
    }
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
          if let row = try LeaseAcceptanceSteps.row(address, on: connection) {
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
    let rows = try LeaseAcceptanceSteps.leases(
      LeaseStatements.postgres.liveLeases, [.text(origin), .integer(now)], maxRows: maxLiveLeases,
      on: connection)
    var index = LeaseIndex()
    for row in rows { index.update(row) }
    indexes[origin] = OriginIndex(index: index, sequence: version)
  }

  /// The origin's change sequence (`push_origin.lease_version`), which every accept, revocation
  /// and 410 of any process moves in its transaction; 0 before the first.
  public func liveSetVersion(origin: String) throws(PushRelayError) -> Int64? {
    try withConnection { connection throws(PostgresFailure) -> Int64? in
      try connection.query(PostgresStatements.leaseVersion, [origin]).rows.first?.integer(0) ?? 0
    }
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
        try connection.query(
          LeaseStatements.postgres.currentEvents, [origin, pubkey], maxRows: Self.maxAuthorRows
        )
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
          LeaseStatements.postgres.disableEndpoint,
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
      return try connection.read { () throws(PostgresFailure) in
        try LeaseAcceptanceSteps.row(address, on: connection)
      }
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
      return try LeaseAcceptanceSteps.leases(
        LeaseStatements.postgres.originLeases, [.text(origin)], maxRows: Self.maxLiveLeases,
        on: state.connection)
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
}

/// PostgreSQL's side of the lease dialect seam: flags as booleans, an event's JSON as text, reads
/// bounded by `maxRows`, and a unique violation of `push_lease_endpoint` (another process leased
/// the endpoint between step 6 and the upsert) as `endpoint_already_leased`.
extension PostgresConnection: LeaseSQLConnection {
  package var leaseStatements: LeaseStatements { .postgres }

  package func select<T>(
    _ sql: String, _ values: [LeaseSQLValue], maxRows: Int, _ read: (PostgresRow) throws(PostgresFailure) -> T
  ) throws(PostgresFailure) -> [T] {
    var mapped: [T] = []
    for row in try query(sql, values.map(\.postgresParameter), maxRows: maxRows).rows {
      mapped.append(try read(row))
    }
    return mapped
  }

  @discardableResult
  package func write(_ sql: String, _ values: [LeaseSQLValue]) throws(PostgresFailure) -> Int {
    try query(sql, values.map(\.postgresParameter)).changed
  }

  package func refusal(for failure: PostgresFailure) -> LeaseRefusal.Code? {
    guard failure.isConstraint else { return nil }
    if failure.sqlState == "23505" && failure.constraint == "push_lease_endpoint" {
      return .endpointAlreadyLeased
    }
    return .leaseConstraintViolation
  }

  package func failure(_ error: PushRelayError) -> PostgresFailure {
    PostgresFailure.local("\(error.field ?? "push_lease"): \(error.message)")
  }
}

extension LeaseSQLValue {
  /// The value as a PostgreSQL text parameter: a flag as `t`/`f`, an event's JSON as text, NULL as
  /// nil.
  package var postgresParameter: String? {
    switch self {
    case .text(let text): text
    case .integer(let integer): String(integer)
    case .flag(let flag): flag ? "t" : "f"
    case .json(let bytes): String(decoding: bytes, as: UTF8.self)
    case .null: nil
    }
  }
}

extension PostgresRow: LeaseSQLRow {
  package func string(_ column: Int) -> String? { text(column) }
  package func int64(_ column: Int) -> Int64 { integer(column) }
  package func flag(_ column: Int) -> Bool { bool(column) }
  package func bytes(_ column: Int) -> [UInt8]? { text(column).map { Array($0.utf8) } }
}
