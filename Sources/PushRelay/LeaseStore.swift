import NostrEvent
import PushLease

/// A lease's replaceable address within one relay: the tenant origin and the lease's own
/// `30350:<pubkey>:<d>` address.
///
/// Every rule of the store (staleness, generation, quota, endpoint uniqueness) is per origin, so
/// one database can hold several tenants.
public struct LeaseAddress: Sendable, Hashable, CustomStringConvertible {
  /// The tenant origin (`push.origin`).
  public var origin: String
  /// The address within the tenant: author and `d`.
  public var lease: OpenedLease.Address

  /// Creates an address.
  public init(origin: String, pubkey: String, d: String) {
    self.origin = origin
    self.lease = OpenedLease.Address(pubkey: pubkey, d: d)
  }

  /// The address of `lease` under `origin`.
  package init(origin: String, lease: OpenedLease.Address) {
    self.origin = origin
    self.lease = lease
  }

  /// The author's pubkey (64 lowercase hex).
  public var pubkey: String {
    get { lease.pubkey }
    set { lease.pubkey = newValue }
  }

  /// The `d` tag.
  public var d: String {
    get { lease.d }
    set { lease.d = newValue }
  }

  /// `30350:<pubkey>:<d>` at the origin.
  public var description: String { "\(origin) \(lease)" }
}

/// One stored lease row: the current event of an address, lease or tombstone, with what the
/// matcher and the worker read from it.
public struct StoredLease: Sendable, Hashable {
  /// The address.
  public var address: LeaseAddress
  /// The current event's id.
  public var eventID: String
  /// The current event's `created_at`.
  public var createdAt: Int64
  /// The lease's `expiration` (Unix seconds).
  public var expiresAt: Int64
  /// The push key id the lease was encrypted to (`exec`), the key that signs its gateway requests.
  public var keyID: String
  /// The stored generation (a tombstone's own).
  public var generation: Int64
  /// Whether the row is an active lease (false: a tombstone, or an expired lease swept inactive).
  public var active: Bool
  /// Whether the endpoint may be woken (cleared by a 410 bound to this generation).
  public var endpointEnabled: Bool
  /// The app profile, nil for a tombstone.
  public var appProfile: String?
  /// The gateway transport (`apns`, `fcm`), nil for a tombstone.
  public var transport: String?
  /// The opaque endpoint grant, nil for a tombstone.
  public var endpoint: String?
  /// SHA-256 of the endpoint as 64 lowercase hex, nil for a tombstone.
  public var endpointHash: String?
  /// The subscriptions, empty for a tombstone.
  public var subscriptions: [LeaseSubscription]
  /// The event as received (its JSON bytes).
  public var eventJSON: [UInt8]

  /// Creates a row (another database's `LeaseStore` builds these from its own rows).
  public init(
    address: LeaseAddress, eventID: String, createdAt: Int64, expiresAt: Int64, keyID: String,
    generation: Int64,
    active: Bool, endpointEnabled: Bool, appProfile: String?, transport: String?, endpoint: String?,
    endpointHash: String?, subscriptions: [LeaseSubscription], eventJSON: [UInt8]
  ) {
    self.address = address
    self.eventID = eventID
    self.createdAt = createdAt
    self.expiresAt = expiresAt
    self.keyID = keyID
    self.generation = generation
    self.active = active
    self.endpointEnabled = endpointEnabled
    self.appProfile = appProfile
    self.transport = transport
    self.endpoint = endpoint
    self.endpointHash = endpointHash
    self.subscriptions = subscriptions
    self.eventJSON = eventJSON
  }

  /// Whether the lease may be matched and woken at `now`: active, enabled and unexpired.
  package func isLive(now: Int64) -> Bool {
    active && endpointEnabled && expiresAt > now
  }

  /// A stored lease event read back from its bytes; a row that does not parse is `corrupt_row`
  /// (field `push_lease.event`), whichever database held it.
  package static func event(stored bytes: [UInt8]) throws(PushRelayError) -> Event {
    guard let event = try? Event(json: bytes) else {
      throw PushRelayError(
        code: .corruptRow, field: "push_lease.event", message: "a stored lease event cannot be parsed")
    }
    return event
  }
}

/// The store's answer to one lease: accepted, an exact replay, or refused with the OK text.
public enum LeaseAcceptance: Sendable, Hashable {
  /// Stored and committed: `OK true ""`.
  case accepted
  /// This address's current event already: `OK true "duplicate: already have this event"`.
  case duplicate
  /// Refused, nothing changed: `OK false` with `message` (`invalid: stale generation`, …).
  case rejected(String)

  /// The NIP-01 `OK` message of the answer.
  package var message: String {
    switch self {
    case .accepted: ""
    case .duplicate: "duplicate: already have this event"
    case .rejected(let message): message
    }
  }

  /// Whether the `OK` is `true`.
  package var isAccepted: Bool {
    if case .rejected = self { return false }
    return true
  }
}

/// A channel's member pubkeys, for the matcher, back-fill and the worker's send-time re-check.
///
/// A relay answers from its own membership data; nil means the channel has no roster (so no one is
/// a member and no channel event wakes anybody).
public protocol RosterSource: Sendable {
  /// The member pubkeys of `channel` at `origin`, or nil when it has no roster.
  func members(ofChannel channel: String, origin: String) -> Set<String>?
}

/// Where a relay keeps leases: the atomic accept step of `Docs/VendoringPushRelay.md`, the record of stored
/// events that back-fill reads and that makes matching idempotent, the live leases the matcher
/// meets, the visible current events, and the 410 switch.
///
/// Synchronous (`throws(PushRelayError)`, never `async`): SQLite is, and a relay's event loop calls
/// it inline. Another database (PostgreSQL) implements the same contract: `accept` is serializable
/// per (origin, pubkey), applies the acceptance table in order with a rejection changing nothing,
/// and is ordered against `didStore` so that each (event, lease) pair meets the matcher exactly
/// once (in the event's `didStore`, or in the back-fill of the lease's accept, which reads the
/// events `didStore` recorded).
public protocol LeaseStore: Sendable {
  /// Applies the acceptance table to `lease` (opened from `event`) at `now`, back-filling wakes for
  /// an active lease from the recorded recent events (received in the last 120 s, newest first, at
  /// most 256) in the same transaction.
  func accept(_ lease: OpenedLease, event: Event, maxLeases: Int, roster: any RosterSource, now: Int64)
    throws(PushRelayError) -> LeaseAcceptance

  /// Records a stored event of `origin` (first `receivedAt` kept) among the recent events, matches
  /// it against the live leases and enqueues its wakes, all in one transaction; an event already
  /// recorded is not matched again. Returns how many wakes it enqueued.
  func didStore(_ event: Event, origin: String, receivedAt: Int64, roster: any RosterSource, now: Int64)
    throws(PushRelayError) -> Int

  /// The leases of `origin` the matcher meets at `now`: active, enabled and unexpired.
  func liveLeases(origin: String, now: Int64) throws(PushRelayError) -> [StoredLease]

  /// The current events (lease or tombstone) of `pubkey`'s addresses at `origin`, newest first:
  /// the only kind 30350 events a relay serves, and only to their author.
  func currentEvents(origin: String, pubkey: String) throws(PushRelayError) -> [Event]

  /// Clears the endpoint of `address` only if its row still has `generation` and `endpointHash`
  /// (a 410 bound to its wake); returns whether a row changed.
  func disableEndpoint(address: LeaseAddress, generation: Int64, endpointHash: String) throws(PushRelayError)
    -> Bool

  /// The row of `address`, if any: what the worker re-checks before sending.
  func lease(at address: LeaseAddress) throws(PushRelayError) -> StoredLease?

  /// A number that moves whenever the live set of `origin` changes, by any process sharing the
  /// store (an accept, a revocation, a 410 switching an endpoint off); nil when the store cannot
  /// tell cheaply, and a cache of the live leases then relies on its own invalidation and age.
  /// One indexed read: cheap enough to ask twice a second.
  func liveSetVersion(origin: String) throws(PushRelayError) -> Int64?
}

extension LeaseStore {
  /// nil: a store of one process (SQLite) sees every change of its live set pass through it.
  public func liveSetVersion(origin: String) throws(PushRelayError) -> Int64? { nil }
}

extension LeaseStore {
  /// The kind 30350 events a REQ or `/query` with `filters` returns to `identity`: that author's
  /// current event per address (lease or tombstone) matching some filter, newest first; none
  /// without an identity.
  ///
  /// Leases are served only from the store, never from an event log, and only to their author
  ///; a relay answers the refusals of that rule (`CLOSED`, 403) itself
  /// and merges these events into its answer.
  package func visibleLeaseEvents(matching filters: [Filter], identity: String?, origin: String)
    throws(PushRelayError) -> [Event]
  {
    guard let identity else { return [] }
    let asksForLeases = filters.contains { filter in
      (filter.kinds?.contains(PushMatcher.leaseKind) ?? true)
        && (filter.authors?.contains(identity) ?? true)
    }
    guard asksForLeases else { return [] }
    return try currentEvents(origin: origin, pubkey: identity).filter { event in
      filters.contains { $0.matches(event) }
    }
  }
}
