import NostrEvent

/// Who may read a stored event, written once for `/query`, `REQ` and the fixture relay: a NIP-59
/// gift wrap only by the pubkey its `p` tag names; an author-only kind (the push lease, and the
/// fixture's `policy.json` kinds) only by its author; anything else by anyone.
public enum EventVisibility {
  /// Whether `event` may be shown to `identity` (nil before authentication).
  public static func isVisible(_ event: Event, to identity: String?, authorOnly: (Int) -> Bool) -> Bool {
    if event.kind == EventKind.giftWrap {
      guard let identity else { return false }
      return event.tagValues("p").contains(identity)
    }
    return !authorOnly(event.kind) || event.pubkey == identity
  }
}
