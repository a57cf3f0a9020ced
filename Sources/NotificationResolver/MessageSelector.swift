import NostrEvent

/// Picks the messages a wake may present from what the relay answered: eligible kinds, not the
/// account's own, within the presentation window (not older than now − window, not more than
/// ``maxFutureSkew`` ahead), not blank, matching a filter that was sent; newest first.
package enum MessageSelector {
  /// The kinds a notification presents: chat message, stream message, forum post, forum reply.
  package static let eligibleKinds: Set<Int> = [9, 40002, 45001, 45003]
  /// How far in the future a `created_at` may be (clock skew), in seconds.
  package static let maxFutureSkew: Int64 = 300

  /// The eligible events among `events` (which must already be verified), newest `created_at`
  /// first and a tie to the lower id, without duplicates.
  ///
  /// Call it on the relay's answer before claiming one for delivery.
  package static func candidates(
    _ events: [Event], filters: [Filter], account: String, now: Int64, window: Int64
  ) -> [Event] {
    var seen: Set<String> = []
    var kept: [Event] = []
    for event in events where isEligible(event, filters: filters, account: account, now: now, window: window)
    {
      if seen.insert(event.id).inserted { kept.append(event) }
    }
    return kept.sorted { lhs, rhs in
      lhs.createdAt != rhs.createdAt ? lhs.createdAt > rhs.createdAt : lhs.id < rhs.id
    }
  }

  /// Whether one verified event may be presented for `account` at `now` with a presentation
  /// window of `window` seconds.
  package static func isEligible(
    _ event: Event, filters: [Filter], account: String, now: Int64, window: Int64
  ) -> Bool {
    guard eligibleKinds.contains(event.kind), event.pubkey != account.lowercased() else { return false }
    guard event.createdAt <= now + maxFutureSkew, event.createdAt >= now - window else { return false }
    guard !event.content.unicodeScalars.allSatisfy({ $0.properties.isWhitespace || isInvisible($0) }) else {
      return false
    }
    return filters.contains { $0.matches(event) }
  }

  private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || scalar.value == 0x7F || ControlCharacterFilter.isBidiControl(scalar)
      || scalar.value == 0x200B || scalar.value == 0xFEFF
  }
}
