import NostrEvent

/// Events the app hands to the cache: profiles and channel refreshes seen by one account on one
/// relay over its own connection, so the extension finds them already cached.
///
/// Pass it to `CacheImporter.enqueue(_:)`. Verification happens on the importer's worker, never
/// on the caller.
public struct ImportBatch: Sendable {
  /// The account the records belong to; kept even if the app switches account meanwhile.
  public var account: String
  /// The relay the events came from.
  public var relay: RelayOrigin
  /// The key that must sign channel metadata and memberships (nil when there are none).
  public var relayKey: String?
  /// Kind 0 events, written in order, 256 per transaction.
  public var profiles: [Event]
  /// Channel refreshes, written in order, 512 per transaction.
  public var channels: [ChannelEvents]

  /// Creates a batch for `account` on `relay`; `relayKey` is required for `channels` to be
  /// stored (without it their events are rejected).
  public init(
    account: String, relay: RelayOrigin, relayKey: String? = nil, profiles: [Event] = [],
    channels: [ChannelEvents] = []
  ) {
    self.account = account
    self.relay = relay
    self.relayKey = relayKey
    self.profiles = profiles
    self.channels = channels
  }
}

/// One channel refresh in an `ImportBatch`: a kind 39000 (metadata), a kind 39002 (roster), or
/// both, stored as one pair.
///
/// Both events must be signed by the batch's `relayKey`. Hand over both halves when the app
/// fetched both: a half stored alone that changed removes the other half.
public struct ChannelEvents: Sendable, Hashable {
  /// The kind 39000 metadata event (the channel's name and type), or nil.
  public var metadata: Event?
  /// The kind 39002 membership event (the channel's roster), or nil.
  public var membership: Event?

  /// Creates a channel refresh from the events the app received; either may be nil.
  public init(metadata: Event?, membership: Event?) {
    self.metadata = metadata
    self.membership = membership
  }
}

/// A handle on an enqueued import, returned by `CacheImporter.enqueue(_:)`.
///
/// An app may drop it; tests and diagnostics pass it to `CacheImporter.wait(for:timeout:)` to
/// learn what the import did.
public struct ImportTicket: Sendable, Hashable {
  /// The batches whose completion this ticket waits for: the new batch (if anything was left
  /// after coalescing) and the pending batches its profiles were merged into.
  package let batchIDs: [UInt64]
}

/// What an import did, as `CacheImporter.wait(for:timeout:)` returns it: counts summed over the
/// ticket's batches, and the first failure if any.
public struct ImportResult: Sendable, Hashable {
  /// The batch, a number the importer gives each enqueued batch in order (it names the batch in
  /// `ImportFailure.batchID` too).
  package var batchID: UInt64
  /// The account the batch was written for (the one it was enqueued for).
  public var account: String
  /// Profiles and channel halves stored or renewed.
  public var written: Int
  /// Events dropped because they did not verify, had the wrong kind or signer, or bad fields.
  public var rejected: Int
  /// Profiles of later requests merged into this batch while it waited, instead of queued twice.
  package var coalesced: Int
  /// Retries after a busy or locked database (another process, such as the extension, held the
  /// write lock).
  package var retries: Int
  /// The terminal failure, when the batch did not complete; nil when every chunk was written.
  public var failure: ImportFailure?
  /// The order in which batches finished (0, 1, 2, … per importer).
  package var completionIndex: Int
}

/// A batch that stopped on a storage error, after its retries when the error was transient.
///
/// Read in `ImportResult.failure` or, whatever succeeded later, in `CacheImporter.failures()`:
/// what an app logs when its imports do not reach the cache.
public struct ImportFailure: Sendable, Hashable {
  /// The batch, as numbered in `ImportResult.batchID`.
  package var batchID: UInt64
  /// The account the batch was enqueued for.
  public var account: String
  /// The index of the chunk (transaction) that failed; chunks before it were written.
  package var chunk: Int
  /// How many times the chunk was tried (1 plus the retries of the retry schedule it used).
  package var attempts: Int
  /// The last error the chunk met (`busy`, `locked`, `storage`, `corrupt`, …).
  public var error: CacheError
}
