/// An event whose id and signature were checked: only verification makes one.
///
/// A relay's socket layer verifies each event once and hands this type on, so the layers above
/// (`PushRelay`'s lease ingest) never verify again and never take an unverified event by mistake.
public struct VerifiedEvent: Sendable, Hashable {
  /// The event.
  public let event: Event

  /// Verifies `event` (id, then signature); nil when either fails (`Event.verify()` says which).
  public init?(_ event: Event) {
    guard event.verify().isValid else { return nil }
    self.event = event
  }

  /// Wraps an event the caller has just verified, for a path that already holds the verdict.
  package init(alreadyVerified event: Event) {
    self.event = event
  }
}
