import NostrEvent

/// Events the app hands to the cache: profiles and channel refreshes seen by one account on one
/// relay. Verification happens on the importer's worker, never on the caller.
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

  /// Creates a batch.
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

/// One channel refresh: a kind 39000, a kind 39002, or both (stored as one pair).
public struct ChannelEvents: Sendable, Hashable {
  /// The kind 39000 metadata event.
  public var metadata: Event?
  /// The kind 39002 membership event.
  public var membership: Event?

  /// Creates a channel refresh.
  public init(metadata: Event?, membership: Event?) {
    self.metadata = metadata
    self.membership = membership
  }
}

/// A handle on an enqueued import, to await its completion.
public struct ImportTicket: Sendable, Hashable {
  /// The batches whose completion this ticket waits for: the new batch (if anything was left
  /// after coalescing) and the pending batches its profiles were merged into.
  public let batchIDs: [UInt64]
}

/// What an import batch did.
public struct ImportResult: Sendable, Hashable {
  /// The batch.
  public var batchID: UInt64
  /// The account the batch was written for.
  public var account: String
  /// Profiles and channel halves stored or renewed.
  public var written: Int
  /// Events dropped because they did not verify, had the wrong kind or signer, or bad fields.
  public var rejected: Int
  /// Profiles of later requests merged into this batch while it waited, instead of queued twice.
  public var coalesced: Int
  /// Retries after a busy or locked database.
  public var retries: Int
  /// The terminal failure, when the batch did not complete.
  public var failure: ImportFailure?
  /// The order in which batches finished (0, 1, 2, … per importer).
  public var completionIndex: Int
}

/// A batch that stopped on a storage error, after its retries when the error was transient.
public struct ImportFailure: Sendable, Hashable {
  /// The batch.
  public var batchID: UInt64
  /// The batch's account.
  public var account: String
  /// The index of the chunk (transaction) that failed; chunks before it were written.
  public var chunk: Int
  /// How many times the chunk was tried.
  public var attempts: Int
  /// The last error.
  public var error: CacheError
}
