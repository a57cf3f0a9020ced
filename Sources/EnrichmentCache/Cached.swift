/// A cached record and whether it is still fresh, as the cache's lookups return it.
///
/// Fresh entries are used without asking the relay; stale ones are still returned so that a slow
/// or failed refresh can fall back on them.
public struct Cached<Value: Sendable & Hashable>: Sendable, Hashable {
  /// How long a fetched record stays fresh, in seconds (one hour).
  package static var freshnessInterval: Int64 { 3600 }

  /// The record as stored.
  public var value: Value
  /// When the record was last fetched or confirmed (unix seconds).
  public var fetchedAt: Int64
  /// Whether the record was fetched less than an hour before the lookup's `now`
  /// (`0 ≤ now − fetchedAt < 3600`); a future `fetchedAt` is stale.
  public var isFresh: Bool

  /// Wraps `value`, judging its freshness at `now`.
  package init(value: Value, fetchedAt: Int64, now: Int64) {
    self.value = value
    self.fetchedAt = fetchedAt
    self.isFresh = Cached.isFresh(fetchedAt: fetchedAt, now: now)
  }

  /// The freshness rule on its own: fresh iff 0 ≤ now − fetchedAt < one hour.
  package static func isFresh(fetchedAt: Int64, now: Int64) -> Bool {
    let (age, overflow) = now.subtractingReportingOverflow(fetchedAt)
    return !overflow && age >= 0 && age < freshnessInterval
  }
}
