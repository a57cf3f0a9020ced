import NostrEvent
import NostrJSON
import NostrPushCore
import PushRelay

/// The one ingest every event passes, whatever its source (an upstream, the WebSocket feed,
/// `POST /events`), in order, each step named:
///
/// 1. parse: a NIP-01 event object, at most ``maxEventBytes`` of JSON;
/// 2. not a lease: kind 30350 arrives only over the service's own WebSocket, with NIP-42;
/// 3. verify: id, then signature;
/// 4. window: a push-eligible kind within now ± 900 s (a gift wrap may be backdated a further two
///    days, as NIP-59 does on purpose);
/// 5. store: events some live lease might match (``LeaseInterest``) and the kinds enrichment reads
///    go into ``ServiceEventStore`` (durable before anything is acknowledged); nothing else is
///    stored, so a flood of events no lease wants leaves the store as it was; a stored id is a
///    duplicate;
/// 6. `PushRelay.didStore` (idempotent: a duplicate completes what an earlier failure left), for
///    the events some live lease might match only. `didStore` records every push-kind event for
///    the relay's 120 s back-fill and commits once per event; for events no lease could match
///    that is a disk write (and a stored row) no lease needs, so a flood of them would grow the
///    store and cost a commit each. Decision: the service's back-fill for a lease accepted later
///    comes from the upstreams instead (each new REQ asks from the cursor − 120 s), and a trusted
///    feed's event that arrived before the lease that wants it does not wake it.
///
/// Synchronous (SQLite); async callers run it through `BlockingWork`, never on a socket thread.
public struct ServiceIngest: Sendable {
  /// The largest event accepted from any source, in JSON bytes.
  public static let maxEventBytes = 256 * 1024
  /// How far a push-eligible event's `created_at` may be from now.
  public static let timestampWindow: Int64 = 900
  /// How much further back a gift wrap (kind 1059) may be dated.
  public static let giftWrapBackdate = EventAdmission.giftWrapBackdate
  /// The kinds stored for enrichment beside the push kinds: profiles and NIP-29 group metadata,
  /// admins and members.
  public static let enrichmentKinds: Set<Int> = [
    EventKind.profile, EventKind.groupMetadata, EventKind.groupAdmins, EventKind.groupMembers,
  ]
  /// The lease kind.
  public static let leaseKind = EventKind.pushLease

  /// What one event came to, with the reason a rejected one was dropped.
  public struct Outcome: Sendable, Hashable {
    /// The result.
    public var result: IngestResult
    /// The event id when it could be read.
    public var id: String?
    /// Why it was rejected or failed (`invalid: …`, `error: …`), empty when accepted.
    public var message: String
  }

  let store: any ServiceEventStore
  let relay: PushRelay
  let pushKinds: Set<Int>
  let clock: UnixClock
  let metrics: ServiceMetrics
  /// What the live leases might match now.
  let interest: @Sendable () -> LeaseInterest

  /// Ingests the event object `value` (`size` bytes on the wire) from `source`.
  public func ingest(_ value: JSONValue, size: Int, source: EventSource) -> Outcome {
    let outcome = judge(value, size: size)
    metrics.count(source, outcome.result)
    return outcome
  }

  private func judge(_ value: JSONValue, size: Int) -> Outcome {
    let readableID = ClientMessage.readableID(value)
    func reject(_ message: String) -> Outcome { Outcome(result: .rejected, id: readableID, message: message) }
    let event: Event
    switch EventAdmission.parse(value, size: size, maxBytes: Self.maxEventBytes) {
    case .success(let parsed): event = parsed
    case .failure(let refusal): return reject(refusal.message)
    }
    guard event.kind != Self.leaseKind else {
      return reject("invalid: push leases are taken only over the service's WebSocket with NIP-42")
    }
    if case .failure(let refusal) = EventAdmission.verify(event) { return reject(refusal.message) }
    let now = clock.now()
    let eligible = pushKinds.contains(event.kind)
    if eligible {
      guard EventAdmission.isTimely(event, now: now, window: Self.timestampWindow) else {
        return reject(EventAdmission.untimely)
      }
    }
    var duplicate = false
    let wanted = eligible && interest().mayMatch(event)
    if Self.enrichmentKinds.contains(event.kind) || wanted {
      do {
        duplicate = try !store.insert(event, json: event.jsonBytes(), receivedAt: now)
      } catch {
        return Outcome(result: .failed, id: event.id, message: "error: internal server error")
      }
    }
    do {
      if wanted { try relay.didStore(event, receivedAt: now) }
    } catch {
      return Outcome(result: .failed, id: event.id, message: "error: internal server error")
    }
    metrics.recordLag(milliseconds: clock.nowMilliseconds() - event.createdAt * 1000)
    return Outcome(
      result: duplicate ? .duplicate : .accepted, id: event.id,
      message: duplicate ? "duplicate: already have this event" : "")
  }
}
