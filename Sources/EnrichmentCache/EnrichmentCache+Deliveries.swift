import NostrEvent
import _NostrSQLite

extension EnrichmentCache {
  /// Claims an event for delivery, atomically: true for the first claim, false when it was
  /// already claimed. Claims older than `deliveryRetention` are pruned in the same transaction.
  /// Throws `accountRemoved` for a removed account.
  ///
  /// `commitIf` is asked inside the transaction, once the write lock is held and the claim is
  /// new, right before it commits; false rolls the claim back and throws `cancelled`. A caller
  /// whose deadline may pass while it waits for the lock uses it so that a claim nobody will
  /// present is never recorded.
  package func claimDelivery(
    eventID: String, account: String, relay: RelayOrigin, now: Int64, commitIf: () -> Bool = { true }
  ) throws(CacheError) -> Bool {
    try HexKey.check(eventID, field: "id")
    try HexKey.check(account, field: "account")
    return try locked { db throws(CacheError) in
      try db.immediateTransaction { () throws(CacheError) in
        guard try !isRemoved(db, account) else {
          throw CacheError(code: .accountRemoved, field: "account", message: "the account was removed")
        }
        try db.run("DELETE FROM deliveries WHERE delivered_at < ?", [.integer(now - Self.deliveryRetention)])
        let inserted = try db.run(
          "INSERT OR IGNORE INTO deliveries(account, relay, event_id, delivered_at) VALUES (?, ?, ?, ?)",
          [.text(account), .text(relay.description), .text(eventID), .integer(now)])
        guard inserted == 1 else { return false }
        guard commitIf() else {
          throw CacheError(
            code: .cancelled, field: "id", message: "the claim was abandoned before it committed")
        }
        return true
      }
    }
  }
}
