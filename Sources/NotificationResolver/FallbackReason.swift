/// Why a wake could not be resolved into a message; shown with the fallback notification.
public enum FallbackReason: String, Sendable, Hashable, Codable, CaseIterable {
  /// The relay answered, but no event passed the eligibility checks.
  case noEligibleEvent = "no_eligible_event"
  /// Every eligible event was already presented by an earlier wake.
  case alreadyDelivered = "already_delivered"
  /// Connection refused, name resolution or TLS failed.
  case relayUnreachable = "relay_unreachable"
  /// The relay answered with a status other than 2xx.
  case relayError = "relay_error"
  /// The body was not a JSON array, too large, truncated or not UTF-8.
  case invalidResponse = "invalid_response"
  /// The account was removed from the cache; nothing is fetched or shown for it.
  case accountRemoved = "account_removed"
  /// The query timeout passed.
  case timeout = "timeout"
  /// A message was found but its delivery claim could not be recorded (the claims file could not
  /// be written): it is not shown, so that it is never shown twice; a later wake that can record
  /// the claim presents it.
  case claimUnavailable = "claim_unavailable"
  /// The relay woke for events that a subscription names but whose kind the resolver cannot
  /// present (a kind outside the resolver's table of presentable kinds): shown as the fallback, never
  /// dropped as nothing new, so what wakes is never silently lost.
  case unsupportedKind = "unsupported_kind"
}

/// The English content shown when nothing resolves: it reveals nothing and asks the user to open
/// the app. The words are ``NotificationStrings/english``'s; a plan carries the configured ones.
public enum FallbackContent {
  /// The English fallback title, `New message`.
  public static var title: String { NotificationStrings.english.fallbackTitle }
  /// The English fallback body, `Open the app to read it.`.
  public static var body: String { NotificationStrings.english.fallbackBody(for: .timeout) }
}
