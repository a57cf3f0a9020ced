import NostrPushCore

/// The provider-token lifecycle of one APNs signing key: one token reused until it is 50 minutes
/// old, replaced early only after `403 ExpiredProviderToken` when the failing token is still the
/// current one and at least 20 minutes old, and never two tokens within 20 minutes (APNs answers
/// `TooManyProviderTokenUpdates` to more, and counts tokens per team).
///
/// The current token lives in an ``APNsProviderTokenSlot``: in memory for one process, in the
/// gateway's store for replicas, so every replica sends the same token. A new token is stored
/// only if the slot still holds the one it replaces; a replica that loses that race uses the
/// winner's. Time comes from the injected ``UnixClock``, so tests move a manual clock instead of
/// waiting.
public final class APNsProviderTokens: Sendable {
  /// A token is reused until it is this old (APNs refuses one older than 60 minutes).
  public static let reuseSeconds: Int64 = 50 * 60
  /// No new token is made sooner than this after the last one.
  public static let minimumSpacingSeconds: Int64 = 20 * 60

  private let key: APNsSigningKey
  private let keyID: APNsIdentifier
  private let teamID: APNsIdentifier
  private let clock: UnixClock
  private let slot: any APNsProviderTokenSlot

  /// Tokens for `keyID` of `teamID`, signed by `key`, timed by `clock`, kept in `slot` (one slot
  /// per key; a fresh in-memory one by default).
  public init(
    key: APNsSigningKey, keyID: APNsIdentifier, teamID: APNsIdentifier, clock: UnixClock = .system,
    slot: any APNsProviderTokenSlot = InMemoryAPNsProviderTokenSlot()
  ) {
    self.key = key
    self.keyID = keyID
    self.teamID = teamID
    self.clock = clock
    self.slot = slot
  }

  /// The token to send now: the stored one while it is younger than 50 minutes, else a new one
  /// (or the one another replica stored first).
  ///
  /// A clock that went back past the token's `iat` keeps the token (its age counts as zero).
  public func token() async throws(PushGatewayError) -> APNsProviderToken {
    let now = clock.now()
    let stored = try await slot.load()
    if let stored, now - stored.issuedAt < Self.reuseSeconds { return stored }
    let made = try APNsProviderToken.make(key: key, keyID: keyID, teamID: teamID, issuedAt: now)
    return try await slot.replace(stored, with: made)
  }

  /// The token to retry with after APNs answered `403 ExpiredProviderToken` to `failing`: the
  /// stored one when `failing` was already replaced, a new one when `failing` is still stored and
  /// at least 20 minutes old, nil when it is younger (no retry: the answer is a configuration
  /// fault).
  public func replacing(_ failing: APNsProviderToken) async throws(PushGatewayError) -> APNsProviderToken? {
    let now = clock.now()
    let stored = try await slot.load()
    guard let stored, stored == failing else { return stored }
    guard now - stored.issuedAt >= Self.minimumSpacingSeconds else { return nil }
    let made = try APNsProviderToken.make(key: key, keyID: keyID, teamID: teamID, issuedAt: now)
    return try await slot.replace(stored, with: made)
  }
}

/// Where the current provider token of one signing key is kept: the gateway's store implements
/// it so that replicas share one token (APNs counts tokens per team).
public protocol APNsProviderTokenSlot: Sendable {
  /// The stored token, nil when none was stored; `token_store_unavailable` when the store fails.
  func load() async throws(PushGatewayError) -> APNsProviderToken?
  /// Stores `new` if the slot still holds `expected` (nil: holds none) and returns `new`;
  /// otherwise returns what the slot holds, unchanged.
  func replace(_ expected: APNsProviderToken?, with new: APNsProviderToken) async throws(PushGatewayError)
    -> APNsProviderToken
}

/// An ``APNsProviderTokenSlot`` in memory: one gateway process.
public final class InMemoryAPNsProviderTokenSlot: APNsProviderTokenSlot {
  private let stored = Locked<APNsProviderToken?>(nil)

  /// An empty slot.
  public init() {}

  /// The stored token.
  public func load() async throws(PushGatewayError) -> APNsProviderToken? { stored.current }

  /// Stores `new` if the slot holds `expected`; what the slot holds afterwards.
  public func replace(_ expected: APNsProviderToken?, with new: APNsProviderToken)
    async throws(PushGatewayError)
    -> APNsProviderToken
  {
    stored.withLock { stored in
      if stored == expected { stored = new }
      return stored ?? new
    }
  }
}
