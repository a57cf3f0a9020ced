import Foundation
import NostrEvent
import PushLease
import _NostrSQLite

/// The `push_lease` table of a `PushStateDatabase`: the SQLite `LeaseStore`.
///
/// `accept` is one `BEGIN IMMEDIATE` transaction (SQLite's single writer stands in for Buzz's
/// per-author advisory locks) that applies the acceptance table in order and back-fills the wakes
/// of an active lease into the same file's outbox; a rejection rolls everything back. Rows are
/// never deleted. The live leases of an origin are cached, parsed, and reloaded whenever this
/// store writes or `PRAGMA data_version` says another connection did. `Sendable` because the
/// database is, and the cache has its own lock.
public final class SQLiteLeaseStore: LeaseStore, Sendable {
  /// The state file.
  public let database: PushStateDatabase
  /// The matcher back-fill uses.
  public let matcher: PushMatcher
  /// The parsed live leases and match indexes per origin, valid for one `generation`.
  private struct LeaseCache {
    var leases: [String: [StoredLease]] = [:]
    var indexes: [String: (generation: Int, index: LeaseIndex)] = [:]
    var dataVersion: Int64 = -1
    var generation = 0

    mutating func clear() {
      leases.removeAll()
      indexes.removeAll()
      generation += 1
    }
  }

  private let cache = Locked(LeaseCache())

  /// A store on `database`; `matcher` judges back-fill candidates.
  public init(database: PushStateDatabase, matcher: PushMatcher = PushMatcher()) {
    self.database = database
    self.matcher = matcher
  }

  static let columns = """
    origin, pubkey, d, event_id, created_at, expires_at, key_id, generation, active, endpoint_enabled,
    app_profile, transport, endpoint, endpoint_hash, subscriptions, event
    """

  /// Applies the acceptance table in one `BEGIN IMMEDIATE` transaction and back-fills an active
  /// lease's wakes in it; a rejection rolls everything back.
  public func accept(
    _ lease: OpenedLease, event: Event, maxLeases: Int, recent: [Event], roster: any RosterSource, now: Int64
  ) throws(PushRelayError) -> LeaseAcceptance {
    let address = LeaseAddress(origin: lease.origin, lease: lease.address)
    let answer = try database.withConnection { connection throws(PushRelayError) -> LeaseAcceptance in
      do throws(PushRelayError) {
        return try connection.immediateTransaction { () throws(PushRelayError) -> LeaseAcceptance in
          let outcome = try Self.apply(
            lease, address: address, event: event, maxLeases: maxLeases, now: now, on: connection)
          guard case .accepted = outcome else { throw Rejected.error(outcome) }
          if case .active = lease.state, let stored = try Self.row(address, on: connection) {
            var wakes: [WakeCandidate] = []
            for candidate in recent.prefix(PushMatcher.maxBackfillCandidates) {
              let channel = PushMatcher.channel(of: candidate)
              let members = channel.flatMap { roster.members(ofChannel: $0, origin: address.origin) }
              if let wake = matcher.candidate(
                for: candidate, lease: stored, channel: channel, members: members, now: now)
              {
                wakes.append(wake)
              }
            }
            _ = try SQLiteWakeOutbox.insert(wakes, nowMilliseconds: now * 1000, on: connection)
          }
          return .accepted
        }
      } catch {
        guard error.code == Rejected.code else { throw error }
        return Rejected.acceptance(of: error)
      }
    }
    if answer == .accepted { invalidate() }
    return answer
  }

  /// A rejection or duplicate carried out of the transaction so that it rolls back.
  private struct Rejected {
    static let code = PushRelayError.Code(rawValue: "lease_rejected")
    static func error(_ acceptance: LeaseAcceptance) -> PushRelayError {
      PushRelayError(
        code: code, field: acceptance == .duplicate ? "duplicate" : nil, message: acceptance.message)
    }

    static func acceptance(of error: PushRelayError) -> LeaseAcceptance {
      error.field == "duplicate" ? .duplicate : .rejected(error.message)
    }
  }

  /// Steps 1–7 of the acceptance table inside the transaction; anything but `.accepted` is thrown
  /// by the caller so that the transaction rolls back.
  private static func apply(
    _ lease: OpenedLease, address: LeaseAddress, event: Event, maxLeases: Int, now: Int64,
    on connection: PushStateConnection
  ) throws(PushRelayError) -> LeaseAcceptance {
    // 1: the event id is already some address's current event.
    let holders = try connection.query(
      "SELECT pubkey, d FROM push_lease WHERE origin = ? AND event_id = ?",
      [.text(address.origin), .text(lease.eventID)]
    ) { ($0.text(0) ?? "", $0.text(1) ?? "") }
    if let holder = holders.first {
      if holder.0 == address.pubkey && holder.1 == address.d {
        return .duplicate
      }
      return .rejected("invalid: source event collision")
    }
    let existing = try row(address, on: connection)
    if let existing {
      // 2: the event must follow the stored one (NIP-01: greater created_at, or equal and smaller id).
      let follows =
        lease.createdAt > existing.createdAt
        || (lease.createdAt == existing.createdAt && lease.eventID < existing.eventID)
      guard follows else { return .rejected("invalid: stale replacement") }
      // 3: the generation must rise.
      guard lease.generation > existing.generation else { return .rejected("invalid: stale generation") }
    }
    // 4: sweep the author's expired active rows.
    try connection.run(
      "UPDATE push_lease SET active = 0 WHERE origin = ? AND pubkey = ? AND active = 1 AND expires_at <= ?",
      [.text(address.origin), .text(address.pubkey), .integer(now)])
    var values: [SQLiteValue] = [
      .text(address.origin), .text(address.pubkey), .text(address.d), .text(lease.eventID),
      .integer(lease.createdAt),
      .integer(lease.expiration), .text(lease.keyID), .integer(lease.generation),
    ]
    switch lease.state {
    case .active(let profile, let transport, let endpoint, let endpointHash, let subscriptions):
      let appProfile = profile ?? ""  // buzz-push-v1: the empty string, never NULL (unique index, `= ?`)
      // 5: quota over the author's other active addresses.
      let others =
        try connection.query(
          "SELECT COUNT(*) FROM push_lease WHERE origin = ? AND pubkey = ? AND active = 1 AND d <> ?",
          [.text(address.origin), .text(address.pubkey), .text(address.d)]
        ) { $0.integer(0) }.first ?? 0
      guard others < Int64(maxLeases) else { return .rejected("invalid: lease quota exceeded") }
      // 6: one active address per (app profile, endpoint).
      let clash =
        try connection.query(
          """
          SELECT COUNT(*) FROM push_lease WHERE origin = ? AND pubkey = ? AND active = 1 AND d <> ?
            AND app_profile = ? AND endpoint_hash = ?
          """,
          [
            .text(address.origin), .text(address.pubkey), .text(address.d), .text(appProfile),
            .text(endpointHash),
          ]
        ) { $0.integer(0) }.first ?? 0
      guard clash == 0 else { return .rejected("invalid: endpoint already leased") }
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
      try connection.run(
        """
        INSERT INTO push_lease (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (origin, pubkey, d) DO UPDATE SET
          event_id = excluded.event_id, created_at = excluded.created_at, expires_at = excluded.expires_at,
          key_id = excluded.key_id, generation = excluded.generation, active = excluded.active,
          endpoint_enabled = excluded.endpoint_enabled, app_profile = excluded.app_profile,
          transport = excluded.transport, endpoint = excluded.endpoint, endpoint_hash = excluded.endpoint_hash,
          subscriptions = excluded.subscriptions, event = excluded.event
        """, values)
    } catch {
      guard PushStateConnection.isConstraint(error) else { throw error }
      return .rejected("invalid: lease constraint violation")
    }
    return .accepted
  }

  /// The active, enabled, unexpired leases of `origin`, from the cache.
  public func liveLeases(origin: String, now: Int64) throws(PushRelayError) -> [StoredLease] {
    try cachedLeases(origin: origin).filter { $0.isLive(now: now) }
  }

  /// The active, enabled leases of `origin` indexed for matching (expiry is checked per event),
  /// cached until the lease set changes.
  public func liveIndex(origin: String) throws(PushRelayError) -> LeaseIndex {
    let generation = cache.withLock { $0.generation }
    let leases = try cachedLeases(origin: origin)
    return cache.withLock { cache in
      guard generation == cache.generation else { return LeaseIndex(leases) }
      if let cached = cache.indexes[origin], cached.generation == generation { return cached.index }
      let index = LeaseIndex(leases)
      cache.indexes[origin] = (generation, index)
      return index
    }
  }

  /// The current event of each of `pubkey`'s addresses at `origin`, newest first (ties: lower id).
  public func currentEvents(origin: String, pubkey: String) throws(PushRelayError) -> [Event] {
    let blobs = try database.withConnection { connection throws(PushRelayError) in
      try connection.query(
        "SELECT event FROM push_lease WHERE origin = ? AND pubkey = ? ORDER BY created_at DESC, event_id ASC",
        [.text(origin), .text(pubkey)]
      ) { $0.blob(0) ?? [] }
    }
    var events: [Event] = []
    for blob in blobs {
      guard let event = try? Event(json: blob) else {
        throw PushRelayError(
          code: .corruptRow, field: "push_lease.event", message: "a stored lease event cannot be parsed")
      }
      events.append(event)
    }
    return events
  }

  /// Clears the endpoint only while the row has the wake's generation and endpoint hash.
  public func disableEndpoint(
    address: LeaseAddress, generation: Int64, endpointHash: String
  ) throws(PushRelayError) -> Bool {
    let changed = try database.withConnection { connection throws(PushRelayError) in
      try connection.run(
        """
        UPDATE push_lease SET endpoint_enabled = 0
        WHERE origin = ? AND pubkey = ? AND d = ? AND generation = ? AND endpoint_hash = ? AND endpoint_enabled = 1
        """,
        [
          .text(address.origin), .text(address.pubkey), .text(address.d), .integer(generation),
          .text(endpointHash),
        ])
    }
    if changed > 0 { invalidate() }
    return changed > 0
  }

  /// The row of `address`, lease or tombstone.
  public func lease(at address: LeaseAddress) throws(PushRelayError) -> StoredLease? {
    try database.withConnection { connection throws(PushRelayError) in try Self.row(address, on: connection) }
  }

  /// Every row of `origin` (leases and tombstones, live or not), for tests and inspection.
  public func allLeases(origin: String) throws(PushRelayError) -> [StoredLease] {
    try database.withConnection { connection throws(PushRelayError) in
      let rows = try connection.query(
        "SELECT \(Self.columns) FROM push_lease WHERE origin = ? ORDER BY pubkey, d", [.text(origin)],
        Self.raw)
      var leases: [StoredLease] = []
      for row in rows { leases.append(try row.lease()) }
      return leases
    }
  }

  // MARK: Rows

  private static func row(_ address: LeaseAddress, on connection: PushStateConnection) throws(PushRelayError)
    -> StoredLease?
  {
    try connection.query(
      "SELECT \(columns) FROM push_lease WHERE origin = ? AND pubkey = ? AND d = ?",
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

  // MARK: Cache

  private func invalidate() {
    cache.withLock { $0.clear() }
  }

  private func cachedLeases(origin: String) throws(PushRelayError) -> [StoredLease] {
    let version = try database.withConnection { connection throws(PushRelayError) in
      try connection.query("PRAGMA data_version") { $0.integer(0) }.first ?? 0
    }
    let (cached, generation) = cache.withLock { cache in
      if version != cache.dataVersion {
        cache.clear()
        cache.dataVersion = version
      }
      return (cache.leases[origin], cache.generation)
    }
    if let cached { return cached }
    let leases = try database.withConnection { connection throws(PushRelayError) in
      let rows = try connection.query(
        "SELECT \(Self.columns) FROM push_lease WHERE origin = ? AND active = 1 AND endpoint_enabled = 1",
        [.text(origin)], Self.raw)
      var leases: [StoredLease] = []
      for row in rows { leases.append(try row.lease()) }
      return leases
    }
    cache.withLock { cache in
      if generation == cache.generation { cache.leases[origin] = leases }
    }
    return leases
  }
}
