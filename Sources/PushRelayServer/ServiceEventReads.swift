import NostrEvent
import PushRelay

/// The one read of a service event store, for both backends: each filter as one bounded
/// `SELECT json FROM service_event …` (kinds, authors, since, until; newest first, at most
/// ``maxScannedRows`` rows), then `filter.matches`, `visible` and the filter's `limit` applied to
/// what it read, the union sorted newest first (a tie to the lower id).
public enum ServiceEventReads {
  /// The most rows one read looks at, whatever its filters ask.
  public static let maxScannedRows = 5000
  /// NIP-01's addressable kinds, whose `d` has a column of its own (`d`, indexed with the kind):
  /// a read by `#d` — the roster's current member list of one channel — is one index look-up,
  /// not a scan of every list of the kind that stops at ``maxScannedRows``.
  static let addressableKinds = EventKind.addressableRange

  /// The `d` of an addressable event (kind 30000–39999): its first `d` tag's value, `""` without
  /// one (NIP-01); nil for every other kind.
  static func address(of event: Event) -> String? {
    guard addressableKinds.contains(event.kind) else { return nil }
    return event.tags.first { $0.count >= 2 && $0[0] == "d" }?[1] ?? ""
  }

  /// Answers `filters`, running each filter's statement (with `?` placeholders, numbered `$n`
  /// when `numbered`) through `run`, which answers each row's event JSON.
  static func answer<Failure: Error>(
    _ filters: [Filter], numbered: Bool, visible: (Event) -> Bool,
    run: (String, [LeaseSQLValue]) throws(Failure) -> [[UInt8]]
  ) throws(Failure) -> [Event] {
    var chosen: [String: Event] = [:]
    for filter in filters {
      let limit = min(max(filter.limit ?? 100, 0), 1000)
      guard limit > 0, let (sql, values) = statement(filter) else { continue }
      var taken = 0
      for json in try run(numbered ? LeaseStatements.numbering(sql) : sql, values) where taken < limit {
        guard let event = try? Event(json: json), filter.matches(event), visible(event) else { continue }
        chosen[event.id] = event
        taken += 1
      }
    }
    return chosen.values.sorted { $0.supersedes($1) }
  }

  /// The statement of one filter with its values, nil when the filter can match nothing (an empty
  /// `kinds` or `authors`).
  static func statement(_ filter: Filter) -> (String, [LeaseSQLValue])? {
    var sql = "SELECT json FROM service_event"
    var values: [LeaseSQLValue] = []
    var conditions: [String] = []
    if let kinds = filter.kinds {
      guard !kinds.isEmpty else { return nil }
      conditions.append("kind IN (" + kinds.map { _ in "?" }.joined(separator: ",") + ")")
      values += kinds.map { .integer(Int64($0)) }
    }
    if let authors = filter.authors {
      guard !authors.isEmpty else { return nil }
      conditions.append("pubkey IN (" + authors.map { _ in "?" }.joined(separator: ",") + ")")
      values += authors.map { .text($0) }
    }
    if let addresses = filter.tags["d"], let kinds = filter.kinds,
      kinds.allSatisfy({ addressableKinds.contains($0) })
    {
      // Only addressable events fill the column (a `#d` over other kinds is checked by
      // `filter.matches` alone).
      guard !addresses.isEmpty else { return nil }
      conditions.append("d IN (" + addresses.map { _ in "?" }.joined(separator: ",") + ")")
      values += addresses.map { .text($0) }
    }
    if let since = filter.since {
      conditions.append("created_at >= ?")
      values.append(.integer(since))
    }
    if let until = filter.until {
      conditions.append("created_at <= ?")
      values.append(.integer(until))
    }
    if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
    // `Event.supersedes` in SQL: each row supersedes the rows after it.
    sql += " ORDER BY created_at DESC, id ASC LIMIT \(maxScannedRows)"
    return (sql, values)
  }
}
