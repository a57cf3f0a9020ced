import NostrEvent
import PushRelay

/// The one write of a service event store, for both backends: the insert (a duplicate id changes
/// nothing) and the per-author byte quota, whose rule — the author's oldest events (the reverse of
/// `Event.supersedes`) go first until their bytes fit, never the event just stored — is written
/// here once. Each store runs it inside its own transaction (and PostgreSQL under the author's
/// advisory lock) through three small adapters: `write` (rows changed), `total` (one integer) and
/// `oldest` (an id and a size).
enum ServiceEventAdmission {
  static let insert = """
    INSERT INTO service_event (id, pubkey, kind, created_at, received_at, size, json, d)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
    """
  static let authorBytes = "SELECT COALESCE(SUM(size), 0) FROM service_event WHERE pubkey = ?"
  static let authorOldest = """
    SELECT id, size FROM service_event WHERE pubkey = ? AND id <> ?
    ORDER BY created_at ASC, id DESC LIMIT 1
    """
  static let delete = "DELETE FROM service_event WHERE id = ?"

  /// Stores `event` (`json`, received at `receivedAt`) and trims its author to `quota` bytes;
  /// false when the id was already stored. Statements use `?` placeholders, numbered `$n` when
  /// `numbered`.
  static func store<Failure: Error>(
    _ event: Event, json: [UInt8], receivedAt: Int64, quota: Int64, numbered: Bool,
    write: (String, [LeaseSQLValue]) throws(Failure) -> Int,
    total: (String, [LeaseSQLValue]) throws(Failure) -> Int64,
    oldest: (String, [LeaseSQLValue]) throws(Failure) -> (id: String, size: Int64)?
  ) throws(Failure) -> Bool {
    func sql(_ text: String) -> String { numbered ? LeaseStatements.numbering(text) : text }
    let inserted = try write(
      sql(insert),
      [
        .text(event.id), .text(event.pubkey), .integer(Int64(event.kind)), .integer(event.createdAt),
        .integer(receivedAt), .integer(Int64(json.count)), .json(json),
        ServiceEventReads.address(of: event).map { .text($0) } ?? .null,
      ])
    guard inserted == 1 else { return false }
    var used = try total(sql(authorBytes), [.text(event.pubkey)])
    while used > quota {
      guard let victim = try oldest(sql(authorOldest), [.text(event.pubkey), .text(event.id)]) else { break }
      _ = try write(sql(delete), [.text(victim.id)])
      used -= victim.size
    }
    return true
  }
}
