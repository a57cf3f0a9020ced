import NostrEvent
import NostrJSON

/// The NIP-01 checks a relay makes of an event before it acts on it, each with the `OK` text of
/// its refusal, written once for the service (``ClientSession``, ``ServiceIngest``) and the
/// fixture relay of `NostrPushTesting`: a bounded size, a well-formed event, its id and
/// signature, and a `created_at` near the relay's clock.
public enum EventAdmission {
  /// How much further back a gift wrap's `created_at` may be: NIP-59 backdates it up to two days
  /// on purpose.
  public static let giftWrapBackdate: Int64 = 172_800
  /// The refusal of an event whose `created_at` is outside the window.
  public static let untimely = "invalid: event timestamp too far from server time"

  /// Parses `value` (an `EVENT` object of `size` bytes on the wire); refused over `maxBytes` or
  /// malformed.
  public static func parse(_ value: JSONValue, size: Int, maxBytes: Int) -> Result<
    Event, ClientMessage.Refusal
  > {
    guard size <= maxBytes else { return .failure(.init("invalid: event over \(maxBytes) bytes")) }
    do {
      return .success(try Event(jsonValue: value))
    } catch {
      return .failure(.init("invalid: malformed event: \(error.field ?? "event"): \(error.message)"))
    }
  }

  /// `event` verified (id, then signature), or the refusal naming which failed.
  public static func verify(_ event: Event) -> Result<VerifiedEvent, ClientMessage.Refusal> {
    if let verified = VerifiedEvent(event) { return .success(verified) }
    if case .badSignature = event.verify() { return .failure(.init("invalid: invalid schnorr signature")) }
    return .failure(.init("invalid: invalid event id: computed \(event.computedID()), got \(event.id)"))
  }

  /// Whether `event`'s `created_at` is within `window` seconds of `now` (a gift wrap may be
  /// ``giftWrapBackdate`` further back); else it is refused with ``untimely``.
  public static func isTimely(_ event: Event, now: Int64, window: Int64) -> Bool {
    let earliest = now - window - (event.kind == EventKind.giftWrap ? giftWrapBackdate : 0)
    return event.createdAt >= earliest && event.createdAt <= now + window
  }
}
