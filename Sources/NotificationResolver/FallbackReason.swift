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
}

/// The content shown when nothing resolves: it reveals nothing and asks the user to open the app.
///
/// An extension sets it as the notification's content before resolving, so that whatever happens
/// next (expiry included) something correct is shown.
public enum FallbackContent {
  /// The fallback title, `New message`: the notification's title until a message resolves.
  public static let title = "New message"
  /// The fallback body, `Open the app to read it.`: the notification's body until a message
  /// resolves.
  public static let body = "Open the app to read it."
}
