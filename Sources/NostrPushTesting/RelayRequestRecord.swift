import NostrEvent

/// One request the fixture relay answered, as a test sees it in the request log.
///
/// Lets a test assert what a client asked for ("no enrichment request was made", "the query
/// carried `limit: 10`", "no credentials went to the avatar host") without a proxy.
public struct RelayRequestRecord: Sendable, Hashable {
  /// The request method (`GET`, `POST`, …); empty when the request head could not be parsed.
  public var method: String
  /// The request path without the query string (`/query`, `/media/avatar.png`).
  public var path: String
  /// For `/query`: every kind listed in any filter's `kinds`, ascending.
  public var kinds: [Int]
  /// For `/query`: the filters as parsed (empty when the body was not a valid filter array).
  public var filters: [Filter]
  /// Whether the request carried an `Authorization` header.
  public var hadAuthorization: Bool
  /// The NIP-98 signer when the request was authenticated.
  public var authorizedPubkey: String?
  /// The status of the answer sent (the fault's status when a fault replaced it; 0 when the
  /// connection was closed without an answer).
  public var status: Int
  /// The fault action that shaped the answer (`delay`, `status`, `oversized_body`,
  /// `truncated_body`, `not_json`, `close`, `body`), nil when none applied.
  public var fault: String?

  /// Creates a record.
  package init(
    method: String, path: String, kinds: [Int] = [], filters: [Filter] = [], hadAuthorization: Bool = false,
    authorizedPubkey: String? = nil, status: Int, fault: String? = nil
  ) {
    self.method = method
    self.path = path
    self.kinds = kinds
    self.filters = filters
    self.hadAuthorization = hadAuthorization
    self.authorizedPubkey = authorizedPubkey
    self.status = status
    self.fault = fault
  }
}
