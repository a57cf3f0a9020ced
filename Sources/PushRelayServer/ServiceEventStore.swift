import NostrEvent

/// The service's durable, bounded event store: the events `/query` and back-fill need, and each
/// upstream's cursor. `SQLiteServiceEventStore` (one file) and `PostgresServiceEventStore` (a
/// database several service processes share) keep the same bounds: a retention (events received
/// longer ago than `retentionSeconds` are pruned), a per-author byte quota (an author over it
/// loses their oldest events first; one event over the whole quota is refused) and a scan bound on
/// every read (``ServiceEventReads/maxScannedRows``). An insert is one statement on an index, never
/// a copy of the store.
public protocol ServiceEventStore: Sendable {
  /// How long events are kept, in seconds.
  var retentionSeconds: Int64 { get }
  /// The most bytes of one author's events kept.
  var authorQuotaBytes: Int { get }

  /// Stores `event` (its `json`) received at `receivedAt`; false when it was already stored or
  /// is larger than the author's whole quota. The author's oldest events go first when the quota
  /// would be passed. One transaction.
  @discardableResult
  func insert(_ event: Event, json: [UInt8], receivedAt: Int64) throws(PushServiceError) -> Bool
  /// Whether an event with `id` is stored.
  func contains(id: String) throws(PushServiceError) -> Bool
  /// The stored events answering `filters`, newest first (a tie to the lower id), each filter's
  /// `limit` (default 100, at most 1000) honoured, `visible` applied before `limit` counts; at
  /// most ``ServiceEventReads/maxScannedRows`` rows are read per filter.
  func events(matching filters: [Filter], visible: (Event) -> Bool) throws(PushServiceError) -> [Event]
  /// Deletes events received more than the retention before `now`; the number deleted.
  @discardableResult
  func prune(now: Int64) throws(PushServiceError) -> Int
  /// How many events are stored, and their bytes.
  func size() throws(PushServiceError) -> (events: Int, bytes: Int)
  /// The durable cursor of the upstream at `url` (Unix seconds up to which it was followed live),
  /// nil before the first.
  func cursor(upstream url: String) throws(PushServiceError) -> Int64?
  /// Moves the cursor of `url` forward to `cursor` (never back).
  func advanceCursor(upstream url: String, to cursor: Int64) throws(PushServiceError)
}
