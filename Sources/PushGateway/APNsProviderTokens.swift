import NostrPushCore

/// The provider-token lifecycle of one APNs signing key: one token reused until it is 50 minutes
/// old, replaced early only after `403 ExpiredProviderToken` when the failing token is still the
/// current one and at least 20 minutes old, and never two tokens within 20 minutes (APNs answers
/// `TooManyProviderTokenUpdates` to more, and counts tokens per team).
///
/// Time comes from the injected ``UnixClock``, so tests move a manual clock instead of waiting.
/// Sharing one token between gateway replicas goes through the gateway's store (not yet here).
public final class APNsProviderTokens: Sendable {
  /// A token is reused until it is this old (APNs refuses one older than 60 minutes).
  public static let reuseSeconds: Int64 = 50 * 60
  /// No new token is made sooner than this after the last one.
  public static let minimumSpacingSeconds: Int64 = 20 * 60

  private let key: APNsSigningKey
  private let keyID: APNsIdentifier
  private let teamID: APNsIdentifier
  private let clock: UnixClock
  private let current = Locked<APNsProviderToken?>(nil)

  /// Tokens for `keyID` of `teamID`, signed by `key`, timed by `clock`.
  public init(key: APNsSigningKey, keyID: APNsIdentifier, teamID: APNsIdentifier, clock: UnixClock = .system)
  {
    self.key = key
    self.keyID = keyID
    self.teamID = teamID
    self.clock = clock
  }

  /// The token to send now: the current one while it is younger than 50 minutes, else a new one.
  ///
  /// A clock that went back past the token's `iat` keeps the token (its age counts as zero).
  public func token() throws(PushGatewayError) -> APNsProviderToken {
    let now = clock.now()
    return try current.withLock { (current) throws(PushGatewayError) -> APNsProviderToken in
      if let token = current, now - token.issuedAt < Self.reuseSeconds { return token }
      let made = try APNsProviderToken.make(key: key, keyID: keyID, teamID: teamID, issuedAt: now)
      current = made
      return made
    }
  }

  /// The token to retry with after APNs answered `403 ExpiredProviderToken` to `failing`: a newer
  /// one when `failing` was already replaced, a new one when `failing` is current and at least
  /// 20 minutes old, nil when it is younger (no retry: the answer is a configuration fault).
  public func replacing(_ failing: APNsProviderToken) throws(PushGatewayError) -> APNsProviderToken? {
    let now = clock.now()
    return try current.withLock { (current) throws(PushGatewayError) -> APNsProviderToken? in
      guard let token = current, token == failing else { return current }
      guard now - token.issuedAt >= Self.minimumSpacingSeconds else { return nil }
      let made = try APNsProviderToken.make(key: key, keyID: keyID, teamID: teamID, issuedAt: now)
      current = made
      return made
    }
  }
}
