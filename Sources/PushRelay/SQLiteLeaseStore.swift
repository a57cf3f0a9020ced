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
        let outcome = try LeaseAcceptanceSteps.apply(
          lease, address: address, event: event, maxLeases: maxLeases, now: now, on: connection)
        guard case .accepted = outcome else { return outcome }
        stored = try LeaseAcceptanceSteps.row(address, on: connection)
        if case .active = lease.state, let row = stored {
          let wakes = try LeaseAcceptanceSteps.backfill(
            row, roster: roster, now: now, matcher: matcher, on: connection)
          _ = try SQLiteWakeOutbox.insert(wakes, nowMilliseconds: now * 1000, on: connection)
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
          [.text(origin), .integer(now - LeasePolicy.backfillWindowSeconds)])
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
      try connection.query(LeaseStatements.sqlite.currentEvents, [.text(origin), .text(pubkey)]) {
        $0.blob(0) ?? []
      }
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
        LeaseStatements.sqlite.disableEndpoint,
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
    try database.withConnection { connection throws(PushRelayError) in
      try LeaseAcceptanceSteps.row(address, on: connection)
    }
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
          let outcome = try LeaseAcceptanceSteps.apply(
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
      try LeaseAcceptanceSteps.leases(
        LeaseStatements.sqlite.originLeases, [.text(origin)], maxRows: .max, on: connection)
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
      let rows = try LeaseAcceptanceSteps.leases(
        LeaseStatements.sqlite.liveLeases, [.text(origin), .integer(now)], maxRows: .max, on: connection)
      var index = LeaseIndex()
      for row in rows { index.update(row) }
      indexes[origin] = index
    }
    return body(&indexes[origin]!)
  }
}
