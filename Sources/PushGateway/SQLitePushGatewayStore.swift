import AppAttest
import Foundation
import NostrPushCore
import _NostrSQLite

/// ``PushGatewayStore`` in one SQLite file: WAL, `synchronous=FULL`, created 0600, migrated by
/// the package's one migrator, calls group-committed in `BEGIN IMMEDIATE` transactions, every
/// statement served by an index (``GatewayStatements``).
///
/// For one gateway process (several processes share one database through PostgreSQL). The
/// connection is used under one lock, off the cooperative thread pool, since a write may wait out
/// another connection's lock for the busy timeout.
///
/// Group commit (issue #40): with `synchronous=FULL` every `COMMIT` is an fsync, and a delivery
/// makes two calls (admission, then outcome), so one transaction per call capped deliveries at
/// the disk's commit rate. Instead, calls that arrive while a transaction is committing wait in
/// a queue and run together in the next one, in arrival order, each inside its own `SAVEPOINT`,
/// at most `batchLimit` (default 64, the gateway's delivery concurrency) a transaction; one
/// `COMMIT` then makes all of them durable, and only after it does any of them return.
/// Durability is unchanged: no call is answered before its effects are on disk. Each call's
/// effects are what they were in a transaction of its own: a refusal keeps its writes (its
/// NIP-98 burn stands), an error rolls back its own savepoint only. When the transaction as a
/// whole fails (`BEGIN`, `COMMIT`, or SQLite abandoning it), every call run in it reports that
/// error and none of its effects remain; calls not yet run go on to the next transaction.
public final class SQLitePushGatewayStore: PushGatewayStore {
  /// The default busy timeout: how long a write waits for another connection's lock.
  public static let defaultBusyTimeoutMilliseconds: Int32 = 5000
  /// The most concurrent calls one transaction holds (see the group commit above).
  public static let defaultBatchLimit = 64
  /// How long a kept answer outlives its wake (a relay's retry never comes later).
  public static let keptAnswerGraceSeconds: Int64 = 60
  /// The longest quota window: one hour.
  static let hourSeconds: Int64 = 3600
  /// The short quota window: 10 s.
  static let shortWindowSeconds: Int64 = 10

  typealias Connection = SQLiteConnection<PushGatewayError>

  static let migrator = SQLiteMigrator<PushGatewayError>(
    GatewayStatements.migrations.map { SQLiteMigration($0.name, sql: $0.sql) },
    newerSchema: { found, known in
      PushGatewayError(
        code: .unsupportedSchema, field: "store", message: "schema version \(found) is newer than \(known)")
    })

  /// The file's path.
  public let path: String
  private let connection: Locked<Connection>
  private let groupCommit: SQLiteGroupCommit

  /// Opens (creating with mode 0600 when missing) the store at `path`, switches it to WAL with
  /// `synchronous=FULL` and migrates it; `invalid_configuration` for an in-memory or empty path,
  /// `storage_unavailable` when SQLite refuses it, `unsupported_schema` for a newer file.
  /// `batchLimit` (at least 1) bounds how many concurrent calls share one transaction.
  public init(
    path: String, busyTimeoutMilliseconds: Int32 = defaultBusyTimeoutMilliseconds,
    batchLimit: Int = defaultBatchLimit
  ) throws(PushGatewayError) {
    guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else {
      throw PushGatewayError(
        code: .invalidConfiguration, field: "store", message: "the gateway store needs a file path")
    }
    let opened = try Connection(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds) { failure in
      PushGatewayError(
        code: .storageUnavailable, field: failure.opening ? "store" : nil,
        message: "SQLite \(failure.status): \(failure.message)")
    }
    let mode = try opened.first("PRAGMA journal_mode = WAL") { $0.text(0) ?? "" } ?? ""
    guard mode.lowercased() == "wal" else {
      throw PushGatewayError(
        code: .storageUnavailable, field: "store", message: "journal_mode is \(mode), WAL was asked for")
    }
    try opened.execute("PRAGMA synchronous = FULL")
    try Self.migrator.migrate(opened)
    self.path = path
    connection = Locked(opened)
    groupCommit = SQLiteGroupCommit(connection, batchLimit: batchLimit)
  }

  /// The `EXPLAIN QUERY PLAN` details of `sql`, for the test that proves every statement uses
  /// an index.
  package func queryPlan(_ sql: String) throws(PushGatewayError) -> [String] {
    try connection.withLock { (connection) throws(PushGatewayError) in
      try connection.query("EXPLAIN QUERY PLAN " + sql) { $0.text(3) ?? "" }
    }
  }

  /// `journal_mode` and `synchronous` (2 is FULL), for the durability test.
  package func durability() throws(PushGatewayError) -> (journalMode: String, synchronous: Int64) {
    try connection.withLock { (connection) throws(PushGatewayError) in
      let mode = try connection.first("PRAGMA journal_mode") { $0.text(0) ?? "" } ?? ""
      let level = try connection.first("PRAGMA synchronous") { $0.integer(0) } ?? -1
      return (mode, level)
    }
  }

  /// Runs `body` in the next group-committed transaction (``SQLiteGroupCommit``) and answers once
  /// that transaction is on disk; a refusal commits too (its NIP-98 burn stands), an error undoes
  /// only this call's savepoint.
  private func transaction<T: Sendable>(
    _ body: @escaping @Sendable (Connection) throws(PushGatewayError) -> T
  ) async throws(PushGatewayError) -> T {
    try await groupCommit.run(body)
  }

  /// How many transactions this store has committed, for the test that proves concurrent calls
  /// share them.
  package var committedTransactions: Int { groupCommit.commits }

  /// Returns once `count` calls have reached the group commit's queue, for tests that build one
  /// batch.
  package func received(atLeast count: Int) async { await groupCommit.received(atLeast: count) }

  // MARK: Rows

  private typealias Installation = GatewayInstallationRow
  private typealias Delegation = GatewayDelegationRow

  private static func burn(_ auth: AuthBurn, now: Int64, _ connection: Connection) throws(PushGatewayError)
    -> Bool
  {
    try connection.run(GatewayStatements.burn, [.text(auth.id), .integer(auth.expiresAt), .integer(now)]) == 1
  }

  private static func installation(_ handle: String, _ connection: Connection) throws(PushGatewayError)
    -> Installation?
  {
    try connection.first(GatewayStatements.installation, [.text(handle)]) { Installation($0) }
  }

  /// The live installation of `owner` with `handle`, nil for any other (never say which).
  private static func ownedLive(
    _ handle: String, owner: String, now: Int64, _ connection: Connection
  ) throws(PushGatewayError) -> Installation? {
    guard let found = try installation(handle, connection), found.owner == owner, found.isLive(at: now) else {
      return nil
    }
    return found
  }

  /// The unrevoked installation holding any of `fingerprints`; an expired one found on the way
  /// is retired so the fingerprint is free.
  private static func holder(
    of fingerprints: [String], now: Int64, _ connection: Connection
  ) throws(PushGatewayError) -> Installation? {
    for fingerprint in fingerprints {
      guard
        let found = try connection.first(
          GatewayStatements.installationByFingerprint, [.text(fingerprint)],
          {
            Installation($0)
          })
      else { continue }
      if found.isLive(at: now) { return found }
      try connection.run(GatewayStatements.retireInstallation, [.text(found.handle)])
    }
    return nil
  }

  // MARK: Registration

  /// Registers an installation (see ``PushGatewayStore/register(_:)``).
  public func register(_ registration: InstallationRegistration) async throws(PushGatewayError)
    -> RegistrationResult
  {
    try await transaction { (connection) throws(PushGatewayError) -> RegistrationResult in
      let r = registration
      guard try Self.burn(r.auth, now: r.now, connection) else { return .authReplayed }
      if let held = try Self.holder(of: r.fingerprints, now: r.now, connection) {
        guard held.owner == r.owner else { return .conflict }
        let expiresAt = max(held.expiresAt, r.expiresAt)
        if expiresAt != held.expiresAt {
          try connection.run(GatewayStatements.extendInstallation, [.integer(expiresAt), .text(held.handle)])
        }
        try Self.storeAttestedKey(r.attestedKey, handle: held.handle, connection)
        return .existing(handle: held.handle, epoch: held.epoch, expiresAt: expiresAt)
      }
      let live =
        try connection.first(GatewayStatements.ownerLiveCount, [.text(r.owner), .integer(r.now)]) {
          $0.integer(0)
        } ?? 0
      guard live < r.maxPerOwner else { return .tooMany }
      try connection.run(
        GatewayStatements.insertInstallation,
        [
          .text(r.newHandle), .text(r.owner), .text(r.appProfile), .text(r.fingerprints.first ?? ""),
          .text(r.sealedToken), .text(r.tokenKid), .integer(r.now), .integer(r.expiresAt),
        ])
      try Self.storeAttestedKey(r.attestedKey, handle: r.newHandle, connection)
      return .created(handle: r.newHandle, epoch: 1, expiresAt: r.expiresAt)
    }
  }

  /// Rotates an installation's device token (see ``PushGatewayStore/rotateEndpoint(_:)``).
  public func rotateEndpoint(_ rotation: EndpointRotation) async throws(PushGatewayError) -> RotationResult {
    try await transaction { (connection) throws(PushGatewayError) -> RotationResult in
      let r = rotation
      guard try Self.burn(r.auth, now: r.now, connection) else { return .authReplayed }
      guard let owned = try Self.ownedLive(r.handle, owner: r.owner, now: r.now, connection) else {
        return .notFound
      }
      guard try Self.raise(r.assertedCounter, handle: owned.handle, connection) else {
        return .assertionReplayed
      }
      let fingerprints = r.fingerprintsByProfile[owned.appProfile] ?? []
      guard let fingerprint = fingerprints.first else { return .notFound }
      if let held = try Self.holder(of: fingerprints, now: r.now, connection), held.handle != owned.handle {
        return .conflict
      }
      try connection.run(
        GatewayStatements.rotateInstallation,
        [.text(fingerprint), .text(r.sealedToken), .text(r.tokenKid), .text(owned.handle)])
      return .rotated(epoch: owned.epoch + 1)
    }
  }

  /// Creates or replaces a delegation (see ``PushGatewayStore/delegate(_:)``).
  public func delegate(_ delegation: DelegationRequest) async throws(PushGatewayError) -> DelegationResult {
    try await transaction { (connection) throws(PushGatewayError) -> DelegationResult in
      let r = delegation
      guard try Self.burn(r.auth, now: r.now, connection) else { return .authReplayed }
      guard let owned = try Self.ownedLive(r.handle, owner: r.owner, now: r.now, connection) else {
        return .notFound
      }
      guard try Self.raise(r.assertedCounter, handle: owned.handle, connection) else {
        return .assertionReplayed
      }
      guard r.expiresAt <= owned.expiresAt else { return .outlivesInstallation }
      let stored = try connection.first(
        GatewayStatements.delegation, [.text(owned.handle), .text(r.relayPubkey)]
      ) { Delegation($0) }
      if let stored, stored.generation > r.generation { return .staleGeneration }
      if stored?.isLive(at: r.now) != true {
        let live =
          try connection.first(
            GatewayStatements.liveDelegationCount, [.text(owned.handle), .integer(r.now)]
          ) { $0.integer(0) } ?? 0
        guard live < r.maxPerInstallation else { return .tooMany }
      }
      try connection.run(
        GatewayStatements.upsertDelegation,
        [
          .text(owned.handle), .text(r.relayPubkey), .text(r.newDelegationID), .integer(r.generation),
          .integer(r.expiresAt),
        ])
      return .delegated(delegationID: r.newDelegationID, appProfile: owned.appProfile, epoch: owned.epoch)
    }
  }

  /// Revokes a delegation or an installation (see ``PushGatewayStore/revoke(_:)``).
  public func revoke(_ revocation: RevocationRequest) async throws(PushGatewayError) -> RevocationResult {
    try await transaction { (connection) throws(PushGatewayError) -> RevocationResult in
      let r = revocation
      guard try Self.burn(r.auth, now: r.now, connection) else { return .authReplayed }
      guard let found = try Self.installation(r.handle, connection), found.owner == r.owner,
        found.expiresAt > r.now
      else { return .notFound }
      guard try Self.raise(r.assertedCounter, handle: found.handle, connection) else {
        return .assertionReplayed
      }
      if let relay = r.relayPubkey {
        try connection.run(GatewayStatements.revokeDelegation, [.text(found.handle), .text(relay)])
      } else {
        try connection.run(GatewayStatements.retireInstallation, [.text(found.handle)])
        try connection.run(GatewayStatements.revokeDelegations, [.text(found.handle)])
      }
      return .revoked
    }
  }

  // MARK: Delivery

  /// Admits one delivery (see ``PushGatewayStore/admit(_:)``).
  public func admit(_ admission: DeliveryAdmission) async throws(PushGatewayError) -> AdmissionResult {
    try await transaction { (connection) throws(PushGatewayError) -> AdmissionResult in
      let a = admission
      guard try Self.burn(a.auth, now: a.now, connection) else { return .authReplayed }
      guard
        let delegation = try connection.first(
          GatewayStatements.delegationByID, [.text(a.delegationID)],
          {
            Delegation($0)
          }),
        delegation.relayPubkey == a.relayPubkey, delegation.generation == a.generation,
        delegation.isLive(at: a.now),
        let installation = try Self.installation(delegation.handle, connection),
        installation.isLive(at: a.now), installation.appProfile == a.appProfile, installation.epoch == a.epoch
      else { return .invalidGrant }
      let keptUntil = max(a.wakeExpiresAt, a.now) + Self.keptAnswerGraceSeconds
      let ledger = try connection.first(
        GatewayStatements.request, [.text(a.relayPubkey), .text(a.requestID)]
      ) { row in
        (kept: row.integer(0) != 0, status: row.integer(1), body: row.blob(2) ?? [], fence: row.integer(3))
      }
      if let ledger {
        if ledger.kept { return .replay(status: Int(ledger.status), body: ledger.body) }
        if ledger.fence > a.now { return .inFlight(retryAfterSeconds: ledger.fence - a.now) }
      }
      if installation.invalid {
        let reply = GatewayReply.invalidEndpoint(generation: a.generation, invalidAt: installation.invalidAt)
        try connection.run(
          GatewayStatements.keepRequest,
          [
            .text(a.relayPubkey), .text(a.requestID), .integer(Int64(reply.status)), .blob(reply.body),
            .integer(keptUntil),
          ])
        return .invalidEndpoint(invalidAt: installation.invalidAt)
      }
      for (limit, window) in [
        (a.quotaPer10Seconds, Self.shortWindowSeconds), (a.quotaPerHour, Self.hourSeconds),
      ] {
        let (count, oldest) =
          try connection.first(
            GatewayStatements.admissionsSince, [.text(installation.fingerprint), .integer(a.now - window)]
          ) { ($0.integer(0), $0.optionalInteger(1)) } ?? (0, nil)
        if count >= Int64(limit) {
          return .rateLimited(retryAfterSeconds: max(1, (oldest ?? a.now) + window - a.now))
        }
      }
      try connection.run(
        GatewayStatements.recordAdmission, [.text(installation.fingerprint), .integer(a.now)])
      try connection.run(
        GatewayStatements.holdRequest,
        [.text(a.relayPubkey), .text(a.requestID), .integer(a.now + a.inFlightSeconds), .integer(keptUntil)])
      return .admitted(
        AdmittedInstallation(
          handle: installation.handle, sealedToken: installation.sealedToken, tokenKid: installation.tokenKid,
          epoch: installation.epoch))
    }
  }

  /// Records what became of an admitted delivery (see ``PushGatewayStore/finish(_:)``).
  public func finish(_ completion: DeliveryCompletion) async throws(PushGatewayError) {
    try await transaction { (connection) throws(PushGatewayError) in
      let c = completion
      if let dead = c.invalidated {
        try connection.run(
          GatewayStatements.invalidateEpoch,
          [dead.invalidAt.map { .integer($0) } ?? .null, .text(dead.handle), .integer(dead.epoch)])
      }
      switch c.disposition {
      case .kept(let status, let body):
        try connection.run(
          GatewayStatements.keepRequest,
          [
            .text(c.relayPubkey), .text(c.requestID), .integer(Int64(status)), .blob(body),
            .integer(c.now + Self.keptAnswerGraceSeconds),
          ])
      case .released:
        try connection.run(GatewayStatements.releaseRequest, [.text(c.relayPubkey), .text(c.requestID)])
      }
    }
  }

  // MARK: Provider tokens

  /// The provider token stored under `slot`.
  public func providerToken(slot: String) async throws(PushGatewayError) -> APNsProviderToken? {
    try await transaction { (connection) throws(PushGatewayError) -> APNsProviderToken? in
      try connection.first(GatewayStatements.providerToken, [.text(slot)]) { row in
        APNsProviderToken(jwt: row.text(0) ?? "", issuedAt: row.integer(1))
      }
    }
  }

  /// Stores `new` under `slot` if it still holds `expected`.
  public func replaceProviderToken(
    slot: String, expected: APNsProviderToken?, with new: APNsProviderToken
  ) async throws(PushGatewayError) -> APNsProviderToken {
    try await transaction { (connection) throws(PushGatewayError) -> APNsProviderToken in
      let stored = try connection.first(GatewayStatements.providerToken, [.text(slot)]) { row in
        APNsProviderToken(jwt: row.text(0) ?? "", issuedAt: row.integer(1))
      }
      guard stored == expected else { return stored ?? new }
      try connection.run(
        GatewayStatements.storeProviderToken, [.text(slot), .text(new.jwt), .integer(new.issuedAt)])
      return new
    }
  }

  // MARK: Reaper

  // MARK: App Attest

  /// Stores `key` for `handle` (replacing an earlier one, counter 0); nothing for nil.
  private static func storeAttestedKey(
    _ key: AttestedKeyRecord?, handle: String, _ connection: Connection
  ) throws(PushGatewayError) {
    guard let key else { return }
    try connection.run(
      GatewayStatements.upsertAttestedKey,
      [.text(handle), .text(key.keyID), .blob(key.publicKey), .blob(key.receipt)])
  }

  /// Raises `handle`'s counter to `counter` when it is above the stored one; false when it is
  /// not (or no key is stored). True without a counter.
  private static func raise(_ counter: Int64?, handle: String, _ connection: Connection)
    throws(PushGatewayError)
    -> Bool
  {
    guard let counter else { return true }
    return try connection.run(
      GatewayStatements.raiseCounter, [.integer(counter), .text(handle), .integer(counter)]) == 1
  }

  /// Stores a challenge (see ``PushGatewayStore/issueChallenge(_:)``).
  public func issueChallenge(_ issue: AttestChallengeIssue) async throws(PushGatewayError)
    -> ChallengeIssueResult
  {
    try await transaction { (connection) throws(PushGatewayError) -> ChallengeIssueResult in
      let r = issue
      guard try Self.burn(r.auth, now: r.now, connection) else { return .authReplayed }
      if let handle = r.handle, try Self.ownedLive(handle, owner: r.owner, now: r.now, connection) == nil {
        return .notFound
      }
      let live =
        try connection.first(GatewayStatements.ownerLiveChallenges, [.text(r.owner), .integer(r.now)]) {
          $0.integer(0)
        } ?? 0
      guard live < r.maxLive else { return .tooMany }
      try connection.run(
        GatewayStatements.insertChallenge,
        [
          .text(r.challenge.id), .text(r.owner), .text(r.purpose), .text(r.challenge.challenge),
          .integer(r.challenge.expiresAt),
        ])
      return .issued
    }
  }

  /// Consumes a challenge (see ``PushGatewayStore/consumeChallenge(id:owner:purpose:now:)``).
  public func consumeChallenge(id: String, owner: String, purpose: String, now: Int64)
    async throws(PushGatewayError) -> String?
  {
    try await transaction { (connection) throws(PushGatewayError) -> String? in
      let found = try connection.first(GatewayStatements.challenge, [.text(id)]) { row in
        (
          owner: row.text(0) ?? "", purpose: row.text(1) ?? "", challenge: row.text(2) ?? "",
          expiresAt: row.integer(3)
        )
      }
      guard let found else { return nil }
      try connection.run(GatewayStatements.deleteChallenge, [.text(id)])
      guard found.owner == owner, found.purpose == purpose, found.expiresAt > now else { return nil }
      return found.challenge
    }
  }

  /// An installation's App Attest state (see ``PushGatewayStore/attestation(handle:owner:now:)``).
  public func attestation(handle: String, owner: String, now: Int64) async throws(PushGatewayError)
    -> InstallationAttestation?
  {
    try await transaction { (connection) throws(PushGatewayError) -> InstallationAttestation? in
      guard let owned = try Self.ownedLive(handle, owner: owner, now: now, connection) else { return nil }
      let key = try connection.first(GatewayStatements.attestedKey, [.text(handle)]) { row in
        (publicKey: row.blob(0) ?? [], counter: row.integer(1))
      }
      return InstallationAttestation(
        appProfile: owned.appProfile, publicKey: key?.publicKey, counter: key?.counter ?? 0)
    }
  }

  /// Deletes rows past their use (see ``PushGatewayStore/reap(now:)``).
  public func reap(now: Int64) async throws(PushGatewayError) -> Int {
    try await transaction { (connection) throws(PushGatewayError) -> Int in
      var deleted = 0
      let handles = try connection.query(GatewayStatements.expiredInstallations, [.integer(now)]) {
        $0.text(0) ?? ""
      }
      for handle in handles {
        deleted += try connection.run(GatewayStatements.deleteDelegationsOf, [.text(handle)])
        deleted += try connection.run(GatewayStatements.deleteInstallation, [.text(handle)])
        deleted += try connection.run(GatewayStatements.deleteAttestedKey, [.text(handle)])
      }
      deleted += try connection.run(GatewayStatements.deleteExpiredChallenges, [.integer(now)])
      deleted += try connection.run(GatewayStatements.deleteExpiredDelegations, [.integer(now)])
      deleted += try connection.run(GatewayStatements.deleteExpiredRequests, [.integer(now)])
      deleted += try connection.run(GatewayStatements.deleteExpiredAuthIDs, [.integer(now)])
      deleted += try connection.run(GatewayStatements.deleteOldAdmissions, [.integer(now - Self.hourSeconds)])
      return deleted
    }
  }
}

extension GatewayInstallationRow {
  /// The row of `GatewayStatements`' installation columns, in their order.
  fileprivate init(_ row: SQLiteRow) {
    self.init(
      handle: row.text(0) ?? "", owner: row.text(1) ?? "", appProfile: row.text(2) ?? "",
      fingerprint: row.text(3) ?? "", sealedToken: row.text(4) ?? "", tokenKid: row.text(5) ?? "",
      epoch: row.integer(6), invalid: row.integer(7) != 0, invalidAt: row.optionalInteger(8),
      expiresAt: row.integer(9),
      revoked: row.integer(10) != 0)
  }
}

extension GatewayDelegationRow {
  /// The row of `GatewayStatements`' delegation columns, in their order.
  fileprivate init(_ row: SQLiteRow) {
    self.init(
      handle: row.text(0) ?? "", relayPubkey: row.text(1) ?? "", id: row.text(2) ?? "",
      generation: row.integer(3), expiresAt: row.integer(4), revoked: row.integer(5) != 0)
  }
}
