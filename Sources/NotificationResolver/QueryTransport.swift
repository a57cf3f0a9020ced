/// How the resolver asks the relay for events: set by configuration, never by probing NIP-11.
public enum QueryTransport: String, Sendable, Hashable, CaseIterable {
  /// NIP-98 authenticated `POST /query`: one HTTP round trip per query (the default).
  case httpQuery = "query"
  /// NIP-01 `REQ` subscriptions on one WebSocket to the relay's `ws(s)://` origin, authenticated
  /// with NIP-42 when the relay asks. The NIP-11 `self` fetch and avatars stay on HTTP.
  case websocket
}
