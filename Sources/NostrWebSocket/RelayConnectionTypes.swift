import NostrEvent

/// The bounds on one query's answer; past either the query sends `CLOSE` and fails
/// `result_too_large`.
public struct QueryLimits: Sendable, Hashable {
  /// The default most events kept: 10 000.
  public static let defaultMaxEvents = 10_000
  /// The default most bytes of the query's `EVENT` messages: 16 MiB.
  public static let defaultMaxBytes = 16 * 1024 * 1024

  /// The most events kept.
  public var maxEvents: Int
  /// The most bytes of `EVENT` messages received for the subscription (dropped ones count).
  public var maxBytes: Int
  /// Element bounds for the subscription's events (`Docs/NotificationServiceExtension.md`): when set,
  /// each `EVENT` message is read in place and an event over a bound (or past the answer's tag
  /// total) is dropped before it is built, never parsed into a JSON tree. Nil: no such bounds.
  package var eventLimits: EventReadLimits?
  /// When true, passing `maxBytes` ends the query with the events kept before it (the
  /// subscription is closed) instead of failing `result_too_large`: an answer over its byte cap
  /// keeps what was read before the cap (`Docs/NotificationServiceExtension.md`); with none kept it still
  /// fails, so a cut answer is never mistaken for an empty one. False by default.
  package var keepsPrefix = false

  /// Creates limits (the defaults unless given).
  public init(maxEvents: Int = QueryLimits.defaultMaxEvents, maxBytes: Int = QueryLimits.defaultMaxBytes) {
    self.maxEvents = maxEvents
    self.maxBytes = maxBytes
  }

  /// Limits of `maxBytes` whose events are read within `eventLimits`.
  package init(maxBytes: Int, eventLimits: EventReadLimits, keepsPrefix: Bool = false) {
    self.init(maxBytes: maxBytes)
    self.eventLimits = eventLimits
    self.keepsPrefix = keepsPrefix
  }
}

/// The relay's answer to a published event: its `OK` message.
///
/// `accepted` false is an answer, not an error: the relay's `message` says why (`duplicate:`,
/// `invalid:`, …), verbatim.
public struct PublishResult: Sendable, Hashable {
  /// The event id the relay answered for.
  public var id: String
  /// Whether the relay accepted the event.
  public var accepted: Bool
  /// The relay's text, verbatim (`""` when it sent none).
  public var message: String

  /// Creates a result.
  package init(id: String, accepted: Bool, message: String) {
    self.id = id
    self.accepted = accepted
    self.message = message
  }
}

/// What a connection has seen so far, for diagnostics and the CLI's summary line.
package struct RelayCounters: Sendable, Hashable {
  /// Events kept by queries (verified, matching, not repeated).
  package var events = 0
  /// `EVENT`s for a pending query dropped: unparsable, forged, not matching, or repeated.
  package var dropped = 0
  /// `NOTICE`s received.
  package var notices = 0
  /// Messages ignored: not arrays, unknown types, wrong shapes, answers for nothing pending.
  package var ignored = 0

  /// All zero.
  package init() {}
}
