import NostrEvent
import NostrHTTP
import PushLease

extension ResolverConfiguration {
  /// Creates the extension's configuration from what the app saved after its last successful
  /// publish: the relay, the lease's own subscriptions, the muted senders and the presentation
  /// window come from `account`; the secret key from the keychain the app and the extension
  /// share.
  ///
  /// The remaining parameters are those of
  /// ``init(relay:secretKey:subscriptions:filters:mutedPubkeys:relayPubkey:community:budget:queryTimeout:avatarDirectory:transport:queryTransport:presentationWindow:canFilterNotifications:canSendCriticalAlerts:)``.
  ///
  /// - Throws: `invalid_key` (field `secret_key`) when `secretKey` is not the account's key, and
  ///   what that initialiser throws (a presentation window outside 1 hour … 14 days).
  public init(
    account: EnrolledAccount, secretKey: SecretKey, relayPubkey: String? = nil, community: String? = nil,
    budget: Duration = defaultBudget, queryTimeout: Duration = defaultQueryTimeout,
    avatarDirectory: String? = nil, transport: any HTTPTransport = URLSessionHTTPTransport.shared,
    queryTransport: QueryTransport = .httpQuery, canFilterNotifications: Bool = false,
    canSendCriticalAlerts: Bool = false
  ) throws(ResolverError) {
    guard secretKey.publicKeyHex == account.account.hex else {
      throw ResolverError(
        code: .invalidKey, field: "secret_key", message: "not the key of the enrolled account")
    }
    try self.init(
      relay: account.origin, secretKey: secretKey, subscriptions: account.subscriptions,
      mutedPubkeys: account.mutedPubkeys.map(\.hex), relayPubkey: relayPubkey, community: community,
      budget: budget, queryTimeout: queryTimeout, avatarDirectory: avatarDirectory, transport: transport,
      queryTransport: queryTransport,
      presentationWindow: account.presentationWindow ?? Self.defaultPresentationWindow,
      canFilterNotifications: canFilterNotifications, canSendCriticalAlerts: canSendCriticalAlerts)
  }
}
