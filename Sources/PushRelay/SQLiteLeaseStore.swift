import Foundation
import NostrEvent
import PushDescriptor
import PushLease
import _NostrSQLite

/// The `push_lease` and `push_recent_event` tables of a `PushStateDatabase`: the SQLite
/// `LeaseStore`.
///
/// `accept` is one `BEGIN IMMEDIATE` transaction (SQLite's single writer stands in for Buzz's
/// per-author advisory locks) that applies the acceptance table in order and back-fills the wakes
/// of an active lease from the recorded recent events into the same file's outbox; a rejection
/// rolls everything back. `didStore` records an event, matches it and enqueues its wakes in one
/// transaction too. Both run under the database's one lock, so each (event, lease) pair meets the
/// matcher exactly once.
///
/// The live leases of each origin are held in a `LeaseIndex`, read from the file once and then
/// updated by address when an accept, tombstone or 410 commits, and by expiry as time passes;
/// another process's write (`PRAGMA data_version`) reloads it. `@unchecked Sendable` because the
/// indexes are touched only inside `database.withConnection`, which holds the connection's lock.
public final class SQLiteLeaseStore: LeaseStore, @unchecked Sendable {
  /// An author's rows, active or not, are bounded by this many times `max_leases_per_pubkey`.
  package static let rowsPerLeaseQuota = 4
  /// How long an inactive row stays past its `expires_at` (a day).
  package static let inactiveRetentionSeconds: Int64 = 86_400

  /// The state file.
  package let database: PushStateDatabase
  private let matcher = PushMatcher()
  /// The live index per origin; guarded by the database's lock.
  private var indexes: [String: LeaseIndex] = [:]
  /// The `data_version` the indexes were read at; guarded by the database's lock.
  private var dataVersion: Int64 = -1

  /// A store on `database`.
  public init(database: PushStateDatabase) {
    self.database = database
  }

  /// Applies the acceptance table in one `BEGIN IMMEDIATE` transaction and back-fills an active
  /// lease's wakes in it; a rejection rolls everything back. Once committed, the live index is
  /// updated at the lease's address.
  public func accept(
    _ lease: OpenedLease, event: Event, maxLeases: Int, roster: any RosterSource, now: Int64
  ) throws(PushRelayError) -> LeaseAcceptance {
    let address = LeaseAddress(origin: lease.origin, lease: lease.address)
    return try database.withConnection { connection throws(PushRelayError) -> LeaseAcceptance in
      try refreshIfChanged(on: connection)
      var stored: StoredLease?
      let answer = try connection.immediateTransaction(keeping: { $0 == .accepted }) {
        () throws(PushRelayError) -> LeaseAcceptance in
        let outcome = try Self.apply(
          lease, address: address, event: event, maxLeases: maxLeases, now: now, on: connection)
        guard case .accepted = outcome else { return outcome }
        stored = try Self.row(address, on: connection)
        if case .active = lease.state, let row = stored {
          try backfill(row, roster: roster, now: now, on: connection)
        }
        return .accepted
      }
      guard answer == .accepted else { return answer }
      if let stored { indexes[address.origin]?.update(stored) }
      return answer
    }
  }

  /// Records `event`, matches it against the live index and enqueues its wakes in one
  /// transaction; an event already recorded enqueues nothing.
  public func didStore(
    _ event: Event, origin: String, receivedAt: Int64, roster: any RosterSource, now: Int64
  ) throws(PushRelayError) -> Int {
    try database.withConnection { connection throws(PushRelayError) -> Int in
      try refreshIfChanged(on: connection)
      return try connection.immediateTransaction { () throws(PushRelayError) -> Int in
        try connection.run(
          PushStatements.pruneRecent,
          [.text(origin), .integer(now - PushMatcher.backfillWindowSeconds)])
        let recorded = try connection.query(
          PushStatements.recentExists, [.text(origin), .text(event.id)]
        ) { _ in true }
        guard recorded.isEmpty else { return 0 }
        try connection.run(
          PushStatements.insertRecent,
          [.text(origin), .text(event.id), .integer(receivedAt), .blob(event.jsonBytes())])
        guard let reading = matcher.read(event, roster: roster, origin: origin) else { return 0 }
        let matcher = self.matcher
        let wakes = try withIndex(origin: origin, now: now, on: connection) { index in
          index.removeExpired(now: now)
          return matcher.candidates(
            for: event, index: &index, reading: reading, receivedAt: receivedAt, now: now)
        }
        guard !wakes.isEmpty else { return 0 }
        return try SQLiteWakeOutbox.insert(wakes, nowMilliseconds: now * 1000, on: connection).count
      }
    }
  }

  /// The back-fill of an accepted active lease: the recorded events of the last 120 s (newest
  /// first, at most 256) that wake it, enqueued in the accept's transaction.
  private func backfill(
    _ lease: StoredLease, roster: any RosterSource, now: Int64, on connection: PushStateConnection
  ) throws(PushRelayError) {
    let origin = lease.address.origin
    let recent = try connection.query(
      PushStatements.recentCandidates,
      [
        .text(origin), .integer(now - PushMatcher.backfillWindowSeconds),
        .integer(Int64(PushMatcher.maxBackfillCandidates)),
      ]
    ) { ($0.integer(0), $0.blob(1) ?? []) }
    var wakes: [WakeCandidate] = []
    for (receivedAt, bytes) in recent {
      guard let candidate = try? Event(json: bytes),
        let reading = matcher.read(candidate, roster: roster, origin: origin),
        let wake = matcher.candidate(
          for: candidate, lease: lease, reading: reading, receivedAt: receivedAt, now: now)
      else { continue }
      wakes.append(wake)
    }
    _ = try SQLiteWakeOutbox.insert(wakes, nowMilliseconds: now * 1000, on: connection)
  }

  /// Steps 1–7 of the acceptance table, with the row bound, inside the transaction; anything but
  /// `.accepted` is thrown by the caller so that the transaction rolls back.
  private static func apply(
    _ lease: OpenedLease, address: LeaseAddress, event: Event, maxLeases: Int, now: Int64,
    on connection: PushStateConnection
  ) throws(PushRelayError) -> LeaseAcceptance {
    let origin = SQLiteValue.text(address.origin)
    let pubkey = SQLiteValue.text(address.pubkey)
    // 1: the event id is already some address's current event.
    let holders = try connection.query(PushStatements.eventHolder, [origin, .text(lease.eventID)]) {
      ($0.text(0) ?? "", $0.text(1) ?? "")
    }
    if let holder = holders.first {
      if holder.0 == address.pubkey && holder.1 == address.d {
        return .duplicate
      }
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
    try connection.run(PushStatements.sweepAuthor, [origin, pubkey, .integer(now)])
    try connection.run(
      PushStatements.pruneAuthor, [origin, pubkey, .integer(now - inactiveRetentionSeconds)])
    // Rows are bounded: a new address past 4 × max_leases rows of the author is refused.
    if existing == nil {
      let rows =
        try connection.query(PushStatements.authorRows, [origin, pubkey]) { $0.integer(0) }.first ?? 0
      guard rows < Int64(rowsPerLeaseQuota) * Int64(maxLeases) else {
        return .rejected(LeaseRefusal(store: .leaseQuotaExceeded).message)
      }
    }
    var values: [SQLiteValue] = [
      origin, pubkey, .text(address.d), .text(lease.eventID), .integer(lease.createdAt),
      .integer(lease.expiration), .text(lease.keyID), .integer(lease.generation),
    ]
    switch lease.state {
    case .active(let profile, let transport, let endpoint, let endpointHash, let subscriptions):
      let appProfile = profile ?? ""  // buzz-push-v1: the empty string, never NULL (unique index, `= ?`)
      // 5: quota over the author's other active addresses.
      let others =
        try connection.query(PushStatements.quota, [origin, pubkey, .text(address.d)]) { $0.integer(0) }.first
        ?? 0
      guard others < Int64(maxLeases) else {
        return .rejected(LeaseRefusal(store: .leaseQuotaExceeded).message)
      }
      // 6: one active address per (app profile, endpoint).
      let clash =
        try connection.query(
          PushStatements.endpointClash,
          [origin, pubkey, .text(address.d), .text(appProfile), .text(endpointHash)]
        ) { $0.integer(0) }.first ?? 0
      guard clash == 0 else { return .rejected(LeaseRefusal(store: .endpointAlreadyLeased).message) }
      values += [
        .integer(1), .integer(1), .text(appProfile), .text(transport), .text(endpoint), .text(endpointHash),
        .text(StoredSubscriptions.encode(subscriptions)),
      ]
    case .tombstone:
      values += [.integer(0), .integer(0), .null, .null, .null, .null, .null]
    }
    values.append(.blob(event.jsonBytes()))
    // 7: upsert; any other constraint failure is the lease's fault, not storage's.
    do {
      try connection.run(PushStatements.upsertLease, values)
    } catch {
      guard PushStateConnection.isConstraint(error) else { throw error }
      return .rejected(LeaseRefusal(store: .leaseConstraintViolation).message)
    }
    return .accepted
  }

  /// Records `pushProtocol` as the generation of `origin`'s rows, as a relay starts: a store holds
  /// one generation per origin. An origin recorded with the other generation is switched only
  /// while it has no rows; otherwise this throws `invalid_configuration` (field `nip11.json`), as
  /// leases and grants are not portable between generations.
  package func bindProtocol(_ pushProtocol: PushProtocol, origin: String) throws(PushRelayError) {
    try database.withConnection { connection throws(PushRelayError) in
      try connection.immediateTransaction { () throws(PushRelayError) in
        let recorded =
          try connection.query(
            "SELECT protocol FROM push_origin_protocol WHERE origin = ?", [.text(origin)]
          ) { $0.text(0) ?? "" }.first
        guard recorded != pushProtocol.rawValue else { return }
        if let recorded {
          let rows =
            try connection.query(
              "SELECT COUNT(*) FROM push_lease WHERE origin = ?", [.text(origin)]
            ) { $0.integer(0) }.first ?? 0
          guard rows == 0 else {
            throw Self.mismatch(recorded: recorded, started: pushProtocol, origin: origin)
          }
        }
        try connection.run(
          "INSERT INTO push_origin_protocol (origin, protocol) VALUES (?, ?) "
            + "ON CONFLICT (origin) DO UPDATE SET protocol = excluded.protocol",
          [.text(origin), .text(pushProtocol.rawValue)])
      }
    }
  }

  /// The generation recorded for `origin`'s rows, nil before a relay bound one.
  package func recordedProtocol(origin: String) throws(PushRelayError) -> PushProtocol? {
    try database.withConnection { connection throws(PushRelayError) in
      try connection.query(
        "SELECT protocol FROM push_origin_protocol WHERE origin = ?", [.text(origin)]
      ) { PushProtocol(rawValue: $0.text(0) ?? "") }.first ?? nil
    }
  }

  /// The active, enabled, unexpired leases of `origin`, from the live index.
  public func liveLeases(origin: String, now: Int64) throws(PushRelayError) -> [StoredLease] {
    try database.withConnection { connection throws(PushRelayError) in
      try refreshIfChanged(on: connection)
      return try withIndex(origin: origin, now: now, on: connection) { index in
        index.removeExpired(now: now)
        return index.leases
      }
    }
  }

  /// The current event of each of `pubkey`'s addresses at `origin`, newest first (ties: lower id).
  public func currentEvents(origin: String, pubkey: String) throws(PushRelayError) -> [Event] {
    let blobs = try database.withConnection { connection throws(PushRelayError) in
      try connection.query(PushStatements.currentEvents, [.text(origin), .text(pubkey)]) { $0.blob(0) ?? [] }
    }
    var events: [Event] = []
    for blob in blobs { events.append(try StoredLease.event(stored: blob)) }
    return events
  }

  /// Clears the endpoint only while the row has the wake's generation and endpoint hash, and
  /// takes the address out of the live index.
  public func disableEndpoint(
    address: LeaseAddress, generation: Int64, endpointHash: String
  ) throws(PushRelayError) -> Bool {
    try database.withConnection { connection throws(PushRelayError) in
      let changed = try connection.run(
        PushStatements.disableEndpoint,
        [
          .text(address.origin), .text(address.pubkey), .text(address.d), .integer(generation),
          .text(endpointHash),
        ])
      if changed > 0 { indexes[address.origin]?.remove(address) }
      return changed > 0
    }
  }

  /// The row of `address`, lease or tombstone.
  public func lease(at address: LeaseAddress) throws(PushRelayError) -> StoredLease? {
    try database.withConnection { connection throws(PushRelayError) in try Self.row(address, on: connection) }
  }

  /// Accepts `leases` in one transaction without back-fill, for a benchmark or test that needs a
  /// store holding many leases before it measures; returns how many were accepted.
  package func seed(_ leases: [(lease: OpenedLease, event: Event)], maxLeases: Int, now: Int64)
    throws(PushRelayError) -> Int
  {
    try database.withConnection { connection throws(PushRelayError) -> Int in
      let accepted = try connection.immediateTransaction { () throws(PushRelayError) -> Int in
        var accepted = 0
        for (lease, event) in leases {
          let address = LeaseAddress(origin: lease.origin, lease: lease.address)
          let outcome = try Self.apply(
            lease, address: address, event: event, maxLeases: maxLeases, now: now, on: connection)
          if outcome == .accepted { accepted += 1 }
        }
        return accepted
      }
      indexes.removeAll()
      return accepted
    }
  }

  /// Every row of `origin` (leases and tombstones, live or not), for tests and inspection.
  package func allLeases(origin: String) throws(PushRelayError) -> [StoredLease] {
    try database.withConnection { connection throws(PushRelayError) in
      let rows = try connection.query(
        "SELECT \(PushStatements.leaseColumns) FROM push_lease WHERE origin = ? ORDER BY pubkey, d",
        [.text(origin)], Self.raw)
      var leases: [StoredLease] = []
      for row in rows { leases.append(try row.lease()) }
      return leases
    }
  }

  // MARK: Live index

  /// Drops every index when another connection wrote the file since they were read.
  private func refreshIfChanged(on connection: PushStateConnection) throws(PushRelayError) {
    let version = try connection.query("PRAGMA data_version") { $0.integer(0) }.first ?? 0
    if version != dataVersion {
      indexes.removeAll()
      dataVersion = version
    }
  }

  /// Runs `body` on the live index of `origin`, reading it from the file the first time.
  private func withIndex<T>(
    origin: String, now: Int64, on connection: PushStateConnection, _ body: (inout LeaseIndex) -> T
  ) throws(PushRelayError) -> T {
    if indexes[origin] == nil {
      let rows = try connection.query(PushStatements.liveLeases, [.text(origin), .integer(now)], Self.raw)
      var index = LeaseIndex()
      for row in rows { index.update(try row.lease()) }
      indexes[origin] = index
    }
    return body(&indexes[origin]!)
  }

  // MARK: Rows

  private static func row(_ address: LeaseAddress, on connection: PushStateConnection) throws(PushRelayError)
    -> StoredLease?
  {
    try connection.query(
      PushStatements.leaseRow,
      [.text(address.origin), .text(address.pubkey), .text(address.d)], raw
    ).first?.lease()
  }

  /// A row as read, before its subscriptions are parsed (parsing may fail, the closure may not).
  private struct RawRow {
    var base: StoredLease
    var subscriptions: String?

    func lease() throws(PushRelayError) -> StoredLease {
      guard let subscriptions else { return base }
      return StoredLease(
        address: base.address, eventID: base.eventID, createdAt: base.createdAt, expiresAt: base.expiresAt,
        keyID: base.keyID, generation: base.generation, active: base.active,
        endpointEnabled: base.endpointEnabled,
        appProfile: base.appProfile, transport: base.transport, endpoint: base.endpoint,
        endpointHash: base.endpointHash, subscriptions: try StoredSubscriptions.decode(subscriptions),
        eventJSON: base.eventJSON)
    }
  }

  private static func raw(_ row: SQLiteRow) -> RawRow {
    RawRow(
      base: StoredLease(
        address: LeaseAddress(origin: row.text(0) ?? "", pubkey: row.text(1) ?? "", d: row.text(2) ?? ""),
        eventID: row.text(3) ?? "", createdAt: row.integer(4), expiresAt: row.integer(5),
        keyID: row.text(6) ?? "",
        generation: row.integer(7), active: row.integer(8) != 0, endpointEnabled: row.integer(9) != 0,
        appProfile: row.text(10), transport: row.text(11), endpoint: row.text(12), endpointHash: row.text(13),
        subscriptions: [], eventJSON: row.blob(15) ?? []),
      subscriptions: row.text(14))
  }

}
