import NostrPushCore

/// A configuration or input the resolver refuses, naming the field and why.
///
/// Equality compares `code` and `field` only, so tests match the failure, not the wording.
public struct ResolverError: NostrPushError {
  /// A stable, machine-readable reason.
  public enum Code: String, Sendable, Hashable {
    /// A relay or media URL that is not an acceptable `ws`/`wss`/`http`/`https` origin.
    case invalidURL = "invalid_url"
    /// A secret key or public key that is not 64 hex characters (or a valid `nsec`).
    case invalidKey = "invalid_key"
    /// Filters that are not a JSON array of NIP-01 filter objects.
    case invalidFilters = "invalid_filters"
    /// A number outside its allowed range (a budget, a timeout).
    case outOfRange = "out_of_range"
  }

  /// The stable reason.
  public var code: Code
  /// The input the problem is in (`relay`, `filters[1]`, `budget`, …).
  public var field: String?
  /// A human-readable explanation.
  public var message: String

  /// Creates an error.
  public init(_ code: Code, field: String?, _ message: String) {
    self.code = code
    self.field = field
    self.message = message
  }

  /// `field: message (code)`.
  public var description: String { "\(field ?? "-"): \(message) (\(code.rawValue))" }

}
