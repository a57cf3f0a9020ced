/// The relay's bound on direct-message wakes (`Docs/Robustness.md`): at most `perWindow` gift-wrap
/// wakes per lease in any `windowMilliseconds`, coalesced, so that wraps from strangers (one-time
/// keys anyone can make) cannot use up the gateway's per-device quota and starve the lease's
/// real wakes.
///
/// Coalesced: a wrap that arrives while the lease has a direct-message wake queued (`pending`,
/// sent or not) gets no wake of its own — the queued one wakes the device, and the extension
/// fetches every wrap newer than it last saw. Past the bound, the wake is not dropped but
/// scheduled for the moment the window allows it, and the wraps after it coalesce into it.
/// Both outboxes ask ``decide(queued:recent:nowMilliseconds:)`` inside their enqueue transaction,
/// each reading its own rows (`dm_at_ms`: the time a direct-message wake was scheduled for).
package enum DirectMessageWakeBound {
  /// Direct-message wakes per lease per window (6).
  package static let perWindow = 6
  /// The window (one minute).
  package static let windowMilliseconds: Int64 = 60_000

  /// What to do with one direct-message candidate.
  package enum Decision: Sendable, Hashable {
    /// A direct-message wake of the lease is already queued: it covers this wrap.
    case coalesce
    /// Enqueue, due at (and counted from) this time, Unix ms.
    case enqueue(dueAtMilliseconds: Int64)
  }

  /// The decision for a lease that has a queued direct-message wake (`queued`) and whose latest
  /// direct-message wakes were scheduled at `recent` (any order; at least the newest
  /// `perWindow`), at `nowMilliseconds`.
  package static func decide(queued: Bool, recent: [Int64], nowMilliseconds: Int64) -> Decision {
    if queued { return .coalesce }
    let inWindow = recent.filter { $0 > nowMilliseconds - windowMilliseconds }.sorted(by: >)
    guard inWindow.count >= perWindow else { return .enqueue(dueAtMilliseconds: nowMilliseconds) }
    return .enqueue(dueAtMilliseconds: max(nowMilliseconds, inWindow[perWindow - 1] + windowMilliseconds))
  }
}
