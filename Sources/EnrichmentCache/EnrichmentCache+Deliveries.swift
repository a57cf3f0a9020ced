import NostrEvent
import _NostrSQLite

extension EnrichmentCache {
  /// How long a claim stays live unpresented (40 s, longer than an extension lives): past it, a
  /// claim that was never presented (the extension was killed) is taken again by the next wake.
  package static let claimLifetime: Int64 = 40
  /// The most message ids one claim or presentation call takes.
  package static let maxClaimBatch = 1024

  /// Claims messages for delivery in one immediate transaction and returns the ids this call
  /// claimed, in the order given.
  ///
  /// Claims live in their own file beside the cache (`DeliveryLedger`): the records file's write
  /// lock, which the app's importer may hold for seconds, never delays them. The claim waits for
  /// the claims file's lock up to `waitMilliseconds` (nil: the cache's busy timeout) — a wake
  /// passes the time left to its deadline.
  ///
  /// Claims are keyed by message id per file (one device), not per account: a message two
  /// accounts can see is claimed once. An id is claimed when it has no row, or when its claim
  /// expired (`claim_expires_at` ≤ `now`) without being presented; a presented message or a live
  /// claim is skipped. Claims older than ``deliveryRetention`` are pruned in the same transaction.
  /// The claim expires at `now` + ``claimLifetime``. Throws `accountRemoved` for a removed account.
  ///
  /// `commitIf` is asked inside the transaction, once the write lock is held and the claimed ids
  /// are known (never with none), right before it commits; false rolls the claim back and throws
  /// `cancelled`. A caller whose deadline may pass while it waits for the lock uses it so that a
  /// claim nobody will present is never recorded.
  package func claimDeliveries(
    _ messageIDs: [String], account: String, relay: RelayOrigin, now: Int64, waitMilliseconds: Int32? = nil,
    commitIf: ([String]) -> Bool = { _ in true }
  ) throws(CacheError) -> [String] {
    try claimDeliveries(
      messageIDs.map { ($0, account) }, relay: relay, now: now, waitMilliseconds: waitMilliseconds,
      commitIf: commitIf)
  }

  /// As ``claimDeliveries(_:account:relay:now:waitMilliseconds:commitIf:)`` for messages of several
  /// accounts of one device: each row records the account it was claimed for (an account's
  /// removal deletes its rows). Throws `accountRemoved` when any of the accounts was removed (the
  /// records file's tombstones are read, never written, inside the claim: a records file that
  /// cannot answer counts as no tombstone, as the wake's registration already checked).
  package func claimDeliveries(
    _ messages: [(id: String, account: String)], relay: RelayOrigin, now: Int64,
    waitMilliseconds: Int32? = nil,
    commitIf: ([String]) -> Bool = { _ in true }
  ) throws(CacheError) -> [String] {
    guard messages.count <= Self.maxClaimBatch else {
      throw CacheError(code: .invalidField, field: "ids", message: "more than \(Self.maxClaimBatch) ids")
    }
    for (id, account) in messages {
      try HexKey.check(id, field: "id")
      try HexKey.check(account, field: "account")
    }
    let accounts = Set(messages.map(\.account))
    return try ledger.run(waitMilliseconds: waitMilliseconds) { db throws(CacheError) in
      try db.immediateTransaction { () throws(CacheError) in
        for account in accounts
        where (try? locked({ records throws(CacheError) in try isRemoved(records, account) })) == true {
          throw CacheError(code: .accountRemoved, field: "account", message: "the account was removed")
        }
        try db.run("DELETE FROM deliveries WHERE claimed_at < ?", [.integer(now - Self.deliveryRetention)])
        var claimed: [String] = []
        for (id, account) in messages where !claimed.contains(id) {
          let changed = try db.run(
            """
            INSERT INTO deliveries(message_id, account, relay, claimed_at, claim_expires_at, presented_at)
            VALUES (?, ?, ?, ?, ?, NULL)
            ON CONFLICT(message_id) DO UPDATE SET
              account = excluded.account, relay = excluded.relay, claimed_at = excluded.claimed_at,
              claim_expires_at = excluded.claim_expires_at
            WHERE deliveries.presented_at IS NULL AND deliveries.claim_expires_at <= ?
            """,
            [
              .text(id), .text(account), .text(relay.description), .integer(now),
              .integer(now + Self.claimLifetime), .integer(now),
            ])
          if changed == 1 { claimed.append(id) }
        }
        guard !claimed.isEmpty else { return [] }
        guard commitIf(claimed) else {
          throw CacheError(
            code: .cancelled, field: "id", message: "the claim was abandoned before it committed")
        }
        return claimed
      }
    }
  }

  /// Claims one message (``claimDeliveries(_:account:relay:now:waitMilliseconds:commitIf:)`` for one id): true when
  /// this call claimed it.
  package func claimDelivery(
    eventID: String, account: String, relay: RelayOrigin, now: Int64, commitIf: () -> Bool = { true }
  ) throws(CacheError) -> Bool {
    try !claimDeliveries([eventID], account: account, relay: relay, now: now, commitIf: { _ in commitIf() })
      .isEmpty
  }

  /// Marks claimed messages presented (the second phase), in one immediate transaction; returns
  /// how many rows changed. A presented message is never claimed again while its row is kept; a
  /// message already presented keeps its first presentation time.
  package func markPresented(_ messageIDs: [String], now: Int64) throws(CacheError) -> Int {
    guard messageIDs.count <= Self.maxClaimBatch else {
      throw CacheError(code: .invalidField, field: "ids", message: "more than \(Self.maxClaimBatch) ids")
    }
    for id in messageIDs { try HexKey.check(id, field: "id") }
    return try ledger.run { db throws(CacheError) in
      try db.immediateTransaction { () throws(CacheError) in
        var changed = 0
        for id in messageIDs {
          changed += try db.run(
            "UPDATE deliveries SET presented_at = ? WHERE message_id = ? AND presented_at IS NULL",
            [.integer(now), .text(id)])
        }
        return changed
      }
    }
  }
}
