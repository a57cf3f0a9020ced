import NostrEvent
import NostrPushCore
import PushDescriptor
import PushLease

/// The `OK` answer to one kind 30350 event: accepted or not, and the NIP-01 message.
public struct IngestAnswer: Sendable, Hashable {
  /// The `OK` flag.
  public var accepted: Bool
  /// The `OK` message (`""`, `duplicate: …`, `invalid: …`, `auth-required: …`).
  public var message: String

  /// Creates an answer.
  package init(accepted: Bool, message: String) {
    self.accepted = accepted
    self.message = message
  }
}

/// `PushRelay`'s ingest of a kind 30350 event: authentication, author, clock, the validator and the
/// store's atomic accept, first failure answering (`Docs/VendoringPushRelay.md` steps 1, 2 and 4–7; step 3, id
/// and signature, is what `VerifiedEvent` says the socket layer did).
struct PushIngest: Sendable {
  /// How far `created_at` may be from the relay's clock (900 s either way).
  static let maxClockSkewSeconds: Int64 = 900

  let validator: LeaseValidator
  let store: any LeaseStore
  let roster: any RosterSource
  let descriptor: PushDescriptor
  let clock: UnixClock

  /// Runs steps 1, 2 and 4–7 for `verified` from the authenticated `identity` (nil: none).
  func ingest(_ verified: VerifiedEvent, identity: String?) throws(PushRelayError) -> IngestAnswer {
    let event = verified.event
    guard let identity else {
      return IngestAnswer(accepted: false, message: "auth-required: not authenticated")
    }
    guard event.pubkey == identity else {
      return IngestAnswer(
        accepted: false, message: "invalid: event pubkey does not match authenticated identity")
    }
    let now = clock.now()
    let (distance, overflow) = now.subtractingReportingOverflow(event.createdAt)
    guard !overflow, distance.magnitude <= UInt64(Self.maxClockSkewSeconds) else {
      return IngestAnswer(accepted: false, message: "invalid: event timestamp too far from server time")
    }
    let lease: OpenedLease
    do {
      lease = try validator.open(event, tenantOrigin: descriptor.origin, now: now)
    } catch {
      return IngestAnswer(accepted: false, message: error.message)
    }
    let acceptance = try store.accept(
      lease, event: event, maxLeases: descriptor.limitation.maxLeasesPerPubkey, roster: roster, now: now)
    return IngestAnswer(accepted: acceptance.isAccepted, message: acceptance.message)
  }
}
