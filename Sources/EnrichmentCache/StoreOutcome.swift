/// What a write did with a record.
///
/// Writes that lose to the replacement order or arrive for a removed account are not errors: the
/// caller learns what happened and goes on.
public enum StoreOutcome: Sendable, Hashable {
  /// The record was new or newer and is now stored.
  case stored
  /// The same event was already stored; its fetch time was renewed.
  case renewed
  /// A newer event (larger `created_at`, or equal with a lower id) is stored; nothing changed.
  case ignoredOlder
  /// The account was removed; the write was discarded.
  case discardedAccountRemoved
}
