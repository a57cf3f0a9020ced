import AppAttest
import NostrPushCore
import PushGateway
import _NostrPostgres

/// ``PushGatewayStore`` on PostgreSQL, for several gateway processes on one database: the same
/// contract as ``SQLitePushGatewayStore``, each call one transaction, rows locked in the order
/// installation → delegation (`SELECT … FOR UPDATE`), so concurrent admissions of one device
/// queue on its installation row and two calls never wait on each other crosswise.
///
/// One libpq connection of its own (the package's one `PostgresConnection`, from
/// `_NostrPostgres`), used under a lock and off the cooperative pool; a lock timeout, deadlock
/// or lost connection runs the transaction again (at most three times), after which the call
/// fails `storage_unavailable` (the gateway answers 503). Every body is safe to run again: its
/// NIP-98 burn is in the same transaction.
public final class PostgresPushGatewayStore: PushGatewayStore {
  private let connection: Locked<PostgresConnection>

  /// Connects with `connectionString` (`postgresql://…` or `host=… dbname=…`) and migrates;
  /// `storage_unavailable` when the server cannot be reached or refuses, `unsupported_schema`
  /// for a database newer than this code.
  public init(connectionString: String) throws(PushGatewayError) {
    do throws(PostgresFailure) {
      let opened = try PostgresConnection(connectionString: connectionString)
      try GatewayPostgresSchema.migrator.migrate(opened)
      connection = Locked(opened)
    } catch {
      throw PushGatewayError(
        code: error.newerSchema ? .unsupportedSchema : .storageUnavailable,
        field: "store", message: "PostgreSQL \(error.sqlState ?? "connection"): \(error.message)")
    }
  }

  private typealias S = GatewayPostgresStatements

  /// Runs `body` in one transaction (committed, refusals included) off the cooperative pool.
  private func transaction<T: Sendable>(
    _ body: @escaping @Sendable (PostgresConnection) throws(PostgresFailure) -> T
  ) async throws(PushGatewayError) -> T {
    try await BlockingWork.run { [connection] () throws(PushGatewayError) -> T in
      do throws(PostgresFailure) {
        return try connection.withLock { (connection) throws(PostgresFailure) -> T in
          try connection.transaction { () throws(PostgresFailure) -> (value: T, commit: Bool) in
            (try body(connection), true)
          }
        }
      } catch {
        throw PushGatewayError(
          code: .storageUnavailable, message: "PostgreSQL \(error.sqlState ?? "connection"): \(error.message)"
        )
      }
    }
  }

  private typealias Installation = GatewayInstallationRow
  private typealias Delegation = GatewayDelegationRow

  private static func burn(_ auth: AuthBurn, now: Int64, _ c: PostgresConnection) throws(PostgresFailure)
    -> Bool
  {
    try c.query(S.burn, [auth.id, String(auth.expiresAt), String(now)]).changed == 1
  }

  private static func lockedInstallation(_ handle: String, _ c: PostgresConnection) throws(PostgresFailure)
    -> Installation?
  {
    try c.query(S.installationForUpdate, [handle], maxRows: 1).rows.first.map(Installation.init)
  }

  private static func holder(of fingerprints: [String], now: Int64, _ c: PostgresConnection)
    throws(PostgresFailure) -> Installation?
  {
    for fingerprint in fingerprints {
      guard
        let found = try c.query(S.installationByFingerprint, [fingerprint], maxRows: 1).rows.first.map(
          Installation.init)
      else { continue }
      if found.isLive(at: now) { return found }
      try c.query(S.retireInstallation, [found.handle])
    }
    return nil
  }

  /// Registers an installation (see ``PushGatewayStore/register(_:)``).
  public func register(_ registration: InstallationRegistration) async throws(PushGatewayError)
    -> RegistrationResult
  {
    try await transaction { (c) throws(PostgresFailure) -> RegistrationResult in
      let r = registration
      guard try Self.burn(r.auth, now: r.now, c) else { return .authReplayed }
      // One owner's registrations queue on an advisory lock of the owner, so the cap holds.
      try c.query(S.lockOwner, [r.owner])
      if let held = try Self.holder(of: r.fingerprints, now: r.now, c) {
        guard held.owner == r.owner else { return .conflict }
        let expiresAt = max(held.expiresAt, r.expiresAt)
        if expiresAt != held.expiresAt {
          try c.query(S.extendInstallation, [String(expiresAt), held.handle])
        }
        try Self.storeAttestedKey(r.attestedKey, handle: held.handle, c)
        return .existing(handle: held.handle, epoch: held.epoch, expiresAt: expiresAt)
      }
      let live =
        try c.query(S.ownerLiveCount, [r.owner, String(r.now)], maxRows: 1).rows.first?.integer(0) ?? 0
      guard live < r.maxPerOwner else { return .tooMany }
      let inserted = try c.query(
        S.insertInstallation,
        [
          r.newHandle, r.owner, r.appProfile, r.fingerprints.first ?? "", r.sealedToken, r.tokenKid,
          String(r.now),
          String(r.expiresAt),
        ])
      // Another owner's registration of this token committed first: its row wins.
      guard inserted.changed == 1 else { return .conflict }
      try Self.storeAttestedKey(r.attestedKey, handle: r.newHandle, c)
      return .created(handle: r.newHandle, epoch: 1, expiresAt: r.expiresAt)
    }
  }

  /// Rotates an installation's device token (see ``PushGatewayStore/rotateEndpoint(_:)``).
  public func rotateEndpoint(_ rotation: EndpointRotation) async throws(PushGatewayError) -> RotationResult {
    try await transaction { (c) throws(PostgresFailure) -> RotationResult in
      let r = rotation
      guard try Self.burn(r.auth, now: r.now, c) else { return .authReplayed }
      guard let owned = try Self.lockedInstallation(r.handle, c), owned.owner == r.owner,
        owned.isLive(at: r.now)
      else { return .notFound }
      guard try Self.raise(r.assertedCounter, handle: owned.handle, c) else { return .assertionReplayed }
      let fingerprints = r.fingerprintsByProfile[owned.appProfile] ?? []
      guard let fingerprint = fingerprints.first else { return .notFound }
      if let held = try Self.holder(of: fingerprints, now: r.now, c), held.handle != owned.handle {
        return .conflict
      }
      let updated = try c.query(S.rotateInstallation, [fingerprint, r.sealedToken, r.tokenKid, owned.handle])
      guard updated.changed == 1 else { return .conflict }
      return .rotated(epoch: owned.epoch + 1)
    }
  }

  /// Creates or replaces a delegation (see ``PushGatewayStore/delegate(_:)``).
  public func delegate(_ delegation: DelegationRequest) async throws(PushGatewayError) -> DelegationResult {
    try await transaction { (c) throws(PostgresFailure) -> DelegationResult in
      let r = delegation
      guard try Self.burn(r.auth, now: r.now, c) else { return .authReplayed }
      guard let owned = try Self.lockedInstallation(r.handle, c), owned.owner == r.owner,
        owned.isLive(at: r.now)
      else { return .notFound }
      guard try Self.raise(r.assertedCounter, handle: owned.handle, c) else { return .assertionReplayed }
      guard r.expiresAt <= owned.expiresAt else { return .outlivesInstallation }
      let stored = try c.query(S.delegationForUpdate, [owned.handle, r.relayPubkey], maxRows: 1).rows.first
        .map(
          Delegation.init)
      if let stored, stored.generation > r.generation { return .staleGeneration }
      if stored?.isLive(at: r.now) != true {
        let live =
          try c.query(S.liveDelegationCount, [owned.handle, String(r.now)], maxRows: 1).rows.first?.integer(0)
          ?? 0
        guard live < r.maxPerInstallation else { return .tooMany }
      }
      try c.query(
        S.upsertDelegation,
        [owned.handle, r.relayPubkey, r.newDelegationID, String(r.generation), String(r.expiresAt)])
      return .delegated(delegationID: r.newDelegationID, appProfile: owned.appProfile, epoch: owned.epoch)
    }
  }

  /// Revokes a delegation or an installation (see ``PushGatewayStore/revoke(_:)``).
  public func revoke(_ revocation: RevocationRequest) async throws(PushGatewayError) -> RevocationResult {
    try await transaction { (c) throws(PostgresFailure) -> RevocationResult in
      let r = revocation
      guard try Self.burn(r.auth, now: r.now, c) else { return .authReplayed }
      guard let found = try Self.lockedInstallation(r.handle, c), found.owner == r.owner,
        found.expiresAt > r.now
      else { return .notFound }
      guard try Self.raise(r.assertedCounter, handle: found.handle, c) else { return .assertionReplayed }
      if let relay = r.relayPubkey {
        try c.query(S.revokeDelegation, [found.handle, relay])
      } else {
        try c.query(S.retireInstallation, [found.handle])
        try c.query(S.revokeDelegations, [found.handle])
      }
      return .revoked
    }
  }

  // MARK: App Attest

  /// Stores `key` for `handle` (replacing an earlier one, counter 0); nothing for nil.
  private static func storeAttestedKey(_ key: AttestedKeyRecord?, handle: String, _ c: PostgresConnection)
    throws(PostgresFailure)
  {
    guard let key else { return }
    try c.query(S.upsertAttestedKey, [handle, key.keyID, Hex.encode(key.publicKey), Hex.encode(key.receipt)])
  }

  /// Raises `handle`'s counter to `counter` when it is above the stored one; false when it is
  /// not (or no key is stored). True without a counter.
  private static func raise(_ counter: Int64?, handle: String, _ c: PostgresConnection)
    throws(PostgresFailure)
    -> Bool
  {
    guard let counter else { return true }
    return try c.query(S.raiseCounter, [String(counter), handle]).changed == 1
  }

  /// Stores a challenge (see ``PushGatewayStore/issueChallenge(_:)``); one owner's issues queue
  /// on the owner's advisory lock, so the cap holds across processes.
  public func issueChallenge(_ issue: AttestChallengeIssue) async throws(PushGatewayError)
    -> ChallengeIssueResult
  {
    try await transaction { (c) throws(PostgresFailure) -> ChallengeIssueResult in
      let r = issue
      guard try Self.burn(r.auth, now: r.now, c) else { return .authReplayed }
      if let handle = r.handle {
        guard let found = try Self.lockedInstallation(handle, c), found.owner == r.owner,
          found.isLive(at: r.now)
        else { return .notFound }
      }
      try c.query(S.lockOwner, [r.owner])
      let live =
        try c.query(S.ownerLiveChallenges, [r.owner, String(r.now)], maxRows: 1).rows.first?.integer(0) ?? 0
      guard live < r.maxLive else { return .tooMany }
      try c.query(
        S.insertChallenge,
        [r.challenge.id, r.owner, r.purpose, r.challenge.challenge, String(r.challenge.expiresAt)])
      return .issued
    }
  }

  /// Consumes a challenge (see ``PushGatewayStore/consumeChallenge(id:owner:purpose:now:)``).
  public func consumeChallenge(id: String, owner: String, purpose: String, now: Int64)
    async throws(PushGatewayError) -> String?
  {
    try await transaction { (c) throws(PostgresFailure) -> String? in
      guard let row = try c.query(S.consumeChallenge, [id], maxRows: 1).rows.first,
        row.text(0) == owner, row.text(1) == purpose, row.integer(3) > now
      else { return nil }
      return row.text(2)
    }
  }

  /// An installation's App Attest state (see ``PushGatewayStore/attestation(handle:owner:now:)``).
  public func attestation(handle: String, owner: String, now: Int64) async throws(PushGatewayError)
    -> InstallationAttestation?
  {
    try await transaction { (c) throws(PostgresFailure) -> InstallationAttestation? in
      guard let found = try Self.lockedInstallation(handle, c), found.owner == owner, found.isLive(at: now)
      else { return nil }
      let key = try c.query(S.attestedKey, [handle], maxRows: 1).rows.first
      return InstallationAttestation(
        appProfile: found.appProfile, publicKey: key.flatMap { $0.text(0) }.flatMap { Hex.decode($0) },
        counter: key?.integer(1) ?? 0)
    }
  }

  /// Admits one delivery (see ``PushGatewayStore/admit(_:)``): the installation row locked, then
  /// the delegation's.
  public func admit(_ admission: DeliveryAdmission) async throws(PushGatewayError) -> AdmissionResult {
    try await transaction { (c) throws(PostgresFailure) -> AdmissionResult in
      let a = admission
      guard try Self.burn(a.auth, now: a.now, c) else { return .authReplayed }
      guard let handle = try c.query(S.delegationHandle, [a.delegationID], maxRows: 1).rows.first?.text(0),
        let installation = try Self.lockedInstallation(handle, c),
        let delegation = try c.query(S.delegationByIDForUpdate, [a.delegationID], maxRows: 1).rows.first.map(
          Delegation.init),
        delegation.handle == installation.handle, delegation.relayPubkey == a.relayPubkey,
        delegation.generation == a.generation, delegation.isLive(at: a.now), installation.isLive(at: a.now),
        installation.appProfile == a.appProfile, installation.epoch == a.epoch
      else { return .invalidGrant }
      let keptUntil = max(a.wakeExpiresAt, a.now) + SQLitePushGatewayStore.keptAnswerGraceSeconds
      if let ledger = try c.query(S.requestForUpdate, [a.relayPubkey, a.requestID], maxRows: 1).rows.first {
        if ledger.bool(0) {
          return .replay(status: Int(ledger.integer(1)), body: Array((ledger.text(2) ?? "").utf8))
        }
        let fence = ledger.integer(3)
        if fence > a.now { return .inFlight(retryAfterSeconds: fence - a.now) }
      }
      if installation.invalid {
        let body =
          #"{"status":"invalid_endpoint","generation":\#(a.generation),"invalid_at":\#(installation.invalidAt.map(String.init) ?? "null")}"#
        try c.query(S.keepRequest, [a.relayPubkey, a.requestID, "410", body, String(keptUntil)])
        return .invalidEndpoint(invalidAt: installation.invalidAt)
      }
      for (limit, window) in [(a.quotaPer10Seconds, Int64(10)), (a.quotaPerHour, Int64(3600))] {
        let row = try c.query(
          S.admissionsSince, [installation.fingerprint, String(a.now - window)], maxRows: 1
        ).rows.first
        let count = row?.integer(0) ?? 0
        if count >= Int64(limit) {
          let oldest = row?.text(1).flatMap { Int64($0) } ?? a.now
          return .rateLimited(retryAfterSeconds: max(1, oldest + window - a.now))
        }
      }
      try c.query(S.recordAdmission, [installation.fingerprint, String(a.now)])
      try c.query(
        S.holdRequest, [a.relayPubkey, a.requestID, String(a.now + a.inFlightSeconds), String(keptUntil)])
      return .admitted(
        AdmittedInstallation(
          handle: installation.handle, sealedToken: installation.sealedToken, tokenKid: installation.tokenKid,
          epoch: installation.epoch))
    }
  }

  /// Records what became of an admitted delivery (see ``PushGatewayStore/finish(_:)``).
  public func finish(_ completion: DeliveryCompletion) async throws(PushGatewayError) {
    try await transaction { (c) throws(PostgresFailure) in
      let d = completion
      if let dead = d.invalidated {
        try c.query(S.invalidateEpoch, [dead.invalidAt.map(String.init), dead.handle, String(dead.epoch)])
      }
      switch d.disposition {
      case .kept(let status, let body):
        try c.query(
          S.keepRequest,
          [
            d.relayPubkey, d.requestID, String(status), String(decoding: body, as: UTF8.self),
            String(d.now + SQLitePushGatewayStore.keptAnswerGraceSeconds),
          ])
      case .released:
        try c.query(S.releaseRequest, [d.relayPubkey, d.requestID])
      }
    }
  }

  /// The provider token stored under `slot`.
  public func providerToken(slot: String) async throws(PushGatewayError) -> APNsProviderToken? {
    try await transaction { (c) throws(PostgresFailure) -> APNsProviderToken? in
      try c.query(S.providerToken, [slot], maxRows: 1).rows.first.map {
        APNsProviderToken(jwt: $0.text(0) ?? "", issuedAt: $0.integer(1))
      }
    }
  }

  /// Stores `new` under `slot` if it still holds `expected`.
  public func replaceProviderToken(
    slot: String, expected: APNsProviderToken?, with new: APNsProviderToken
  ) async throws(PushGatewayError) -> APNsProviderToken {
    try await transaction { (c) throws(PostgresFailure) -> APNsProviderToken in
      // Creates the row first if missing, so the lock below always has a row to hold.
      let stored = try c.query(S.providerTokenForUpdate, [slot], maxRows: 1).rows.first.map {
        APNsProviderToken(jwt: $0.text(0) ?? "", issuedAt: $0.integer(1))
      }
      guard stored == expected else { return stored ?? new }
      if stored == nil {
        let inserted = try c.query(S.insertProviderToken, [slot, new.jwt, String(new.issuedAt)])
        if inserted.changed == 0 {
          // Another replica stored one first: use it.
          return try c.query(S.providerToken, [slot], maxRows: 1).rows.first.map {
            APNsProviderToken(jwt: $0.text(0) ?? "", issuedAt: $0.integer(1))
          } ?? new
        }
      } else {
        try c.query(S.storeProviderToken, [slot, new.jwt, String(new.issuedAt)])
      }
      return new
    }
  }

  /// Deletes rows past their use (see ``PushGatewayStore/reap(now:)``).
  public func reap(now: Int64) async throws(PushGatewayError) -> Int {
    try await transaction { (c) throws(PostgresFailure) -> Int in
      let gone = try c.query(S.deleteExpiredInstallations, [String(now)], maxRows: 1000).rows.compactMap {
        $0.text(0)
      }
      var deleted = gone.count
      if !gone.isEmpty {
        deleted += try c.query(S.deleteDelegationsOf, ["{" + gone.joined(separator: ",") + "}"]).changed
        deleted += try c.query(S.deleteAttestedKeysOf, ["{" + gone.joined(separator: ",") + "}"]).changed
      }
      deleted += try c.query(S.deleteExpiredChallenges, [String(now)]).changed
      deleted += try c.query(S.deleteExpiredDelegations, [String(now)]).changed
      deleted += try c.query(S.deleteExpiredRequests, [String(now)]).changed
      deleted += try c.query(S.deleteExpiredAuthIDs, [String(now)]).changed
      deleted += try c.query(S.deleteOldAdmissions, [String(now - 3600)]).changed
      return deleted
    }
  }
}

extension GatewayInstallationRow {
  /// The row of `GatewayStatements`' installation columns, in their order.
  fileprivate init(_ row: PostgresRow) {
    self.init(
      handle: row.text(0) ?? "", owner: row.text(1) ?? "", appProfile: row.text(2) ?? "",
      fingerprint: row.text(3) ?? "", sealedToken: row.text(4) ?? "", tokenKid: row.text(5) ?? "",
      epoch: row.integer(6), invalid: row.bool(7), invalidAt: row.text(8).flatMap { Int64($0) },
      expiresAt: row.integer(9),
      revoked: row.bool(10))
  }
}

extension GatewayDelegationRow {
  /// The row of `GatewayStatements`' delegation columns, in their order.
  fileprivate init(_ row: PostgresRow) {
    self.init(
      handle: row.text(0) ?? "", relayPubkey: row.text(1) ?? "", id: row.text(2) ?? "",
      generation: row.integer(3), expiresAt: row.integer(4), revoked: row.bool(5))
  }
}
