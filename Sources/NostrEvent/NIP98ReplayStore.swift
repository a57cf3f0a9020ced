/// Where a NIP-98 verifier burns the ids of the auth events it accepts, so that a captured header
/// works once: the one seam between `NIP98Verifier` and its memory (`Docs/Robustness.md`).
///
/// An id is kept until `expiresAt`, the moment its event's `created_at` leaves the verifier's
/// window (`created_at` + the seconds allowed before now): after that the event is refused as
/// expired anyway, and before it the id is never dropped. A store that is full of live ids
/// refuses new ones (`unavailable`, a server's 503) instead of evicting one.
///
/// Two implementations: the in-memory set every verifier has by default, for one process, and
/// `PostgresReplayStore` (`PushRelayPostgres`), which burns ids in the database so that every
/// process serving one origin refuses a header another already took. A push gateway uses the same
/// seam for its registration and delivery headers.
public protocol NIP98ReplayStore: Sendable {
  /// Burns `id` (64 hex digits) until `expiresAt` (Unix seconds) as seen at `now`.
  ///
  /// Throws `replayed` when the id is already burnt and live, `unavailable` when the store holds
  /// its capacity of live ids or cannot be reached (the id is then not burnt).
  func burn(_ id: String, expiresAt: Int64, now: Int64) throws(NIP98Error)
}
