import Foundation
import NostrEvent
import NostrHTTP
import NostrPushCore
import NostrWebSocket
import PushDescriptor
import PushLease
import PushRelay

/// The push half of a running fixture relay: the rewritten descriptor it serves and the one
/// `PushRelay` that ingests leases, matches stored events and delivers wakes (`Docs/VendoringPushRelay.md`,
/// "RelayFixture push mode").
///
/// Ingest and event storing both run on the fixture's one `poll()` thread, and `PushRelay` commits
/// an event's record with its wakes, so each (event, lease) pair meets exactly once and a retried
/// event is woken once. `Sendable`: every member is immutable or lock-guarded.
final class FixturePush: Sendable {
  /// The `OK` text of a storage failure (never `invalid:`); `POST /events` answers it with 500.
  static let internalError = "error: internal server error"

  /// The descriptor with `push.origin` and the current key rewritten: what the validator and
  /// the store use.
  let descriptor: PushDescriptor
  /// The NIP-11 document served in push mode (the rewritten descriptor in place).
  let document: [UInt8]
  /// The lease store on the state file (or the shared database).
  let store: any LeaseStore
  /// The wake outbox on the same file (or database).
  let outbox: any WakeOutbox
  /// The tenant origin when it is not the fixture's own (`relay --origin`): NIP-42 and NIP-98
  /// accept it as well.
  let tenantOrigin: String?
  /// The relay's push side.
  let relay: PushRelay
  /// The NIP-98 verifier on the shared replay store (several processes on one database), nil
  /// when the server's own verifier serves.
  let verifier: NIP98Verifier?
  private let clock: UnixClock
  private let temporaryPath: String?
  private let worker = Locked<Task<Void, Never>?>(nil)

  /// Sets the push half up for a fixture at `webSocketOrigin` (`ws://<host>:<port>`) serving
  /// `nip11`, opening (creating) the state file; `roster` answers from the fixture's store.
  init(
    mode: RelayFixturePushMode, nip11: [UInt8]?, webSocketOrigin: String, roster: any RosterSource,
    clock: UnixClock
  ) throws(RelayFixtureError) {
    let (descriptor, document) = try Self.rewrite(
      nip11: nip11, origin: mode.tenantOrigin ?? webSocketOrigin, pushKey: mode.pushKey)
    guard let current = descriptor.currentKey else {
      throw RelayFixtureError(
        code: .invalidData, field: "nip11.json", message: "push.keys has no current key")
    }
    let validator: LeaseValidator
    do {
      validator = try LeaseValidator(descriptor: descriptor, pushKeys: [current.id: mode.pushKey])
    } catch {
      throw RelayFixtureError(code: .invalidData, field: "nip11.json", message: error.message)
    }
    var client: GatewayClient?
    if let url = mode.gatewayURL {
      do {
        client = try GatewayClient(baseURL: url, timeout: mode.gatewayTimeout)
      } catch {
        throw RelayFixtureError(code: .invalidData, field: error.field ?? "gateway", message: error.message)
      }
    }
    guard mode.fallbackInterval > .zero else {
      throw RelayFixtureError(
        code: .invalidData, field: "fallback_interval", message: "the fallback interval must be positive")
    }
    let store: any LeaseStore
    let outbox: any WakeOutbox
    let signal: any WakeSignal
    var temporaryPath: String?
    var verifier: NIP98Verifier?
    if let shared = mode.sharedState {
      do {
        (store, outbox, signal) = try shared.open()
        verifier = try shared.openReplays.map { open throws(PushRelayError) in
          NIP98Verifier(replays: try open())
        }
      } catch {
        throw RelayFixtureError(code: .unreadable, field: "database", message: "\(shared.name): \(error)")
      }
    } else {
      let path =
        mode.statePath
        ?? FileManager.default.temporaryDirectory.appendingPathComponent(
          "relay-fixture-push-\(UUID().uuidString).sqlite"
        ).path
      let database: PushStateDatabase
      do {
        database = try PushStateDatabase(
          path: path, busyTimeoutMilliseconds: PushStateDatabase.fixtureBusyTimeoutMilliseconds)
      } catch {
        throw RelayFixtureError(code: .unreadable, field: "state", message: "\(path): \(error.message)")
      }
      store = SQLiteLeaseStore(database: database)
      outbox = SQLiteWakeOutbox(database: database)
      signal = InProcessWakeSignal()
      temporaryPath = mode.statePath == nil ? path : nil
    }
    self.verifier = verifier
    self.descriptor = descriptor
    self.document = document
    self.store = store
    self.outbox = outbox
    self.clock = clock
    self.temporaryPath = temporaryPath
    self.tenantOrigin = mode.tenantOrigin == webSocketOrigin ? nil : mode.tenantOrigin
    let relay: PushRelay
    do {
      relay = try PushRelay(
        validator: validator, store: store, outbox: outbox, descriptor: descriptor, roster: roster,
        gateway: client, clock: clock, wakeSignal: signal, fallbackInterval: mode.fallbackInterval)
    } catch {
      throw RelayFixtureError(code: .invalidData, field: error.field ?? "nip11.json", message: error.message)
    }
    self.relay = relay
    if client != nil {
      self.worker.withLock { $0 = Task { await relay.run() } }
    }
  }

  /// Validates `nip11` as a push document and rewrites `push.origin` and the current key's
  /// `pubkey`; the result is validated again, so what is served is what a client accepts.
  static func rewrite(nip11: [UInt8]?, origin: String, pushKey: SecretKey) throws(RelayFixtureError) -> (
    PushDescriptor, [UInt8]
  ) {
    guard let nip11 else {
      throw RelayFixtureError(
        code: .invalidData, field: "nip11.json",
        message: "push mode needs a nip11.json with a push descriptor")
    }
    do {
      let read = try RelayDocument(bytes: nip11)
      var push = read.push
      push.origin = origin
      guard let index = push.keys.firstIndex(where: \.isCurrent) else {
        throw PushDescriptorError(code: .missing, field: "push.keys", message: "no current key")
      }
      push.keys[index].pubkey = pushKey.publicKeyHex
      let served = RelayDocument(information: read.information, push: push)
      let checked = try RelayDocument(object: served.information.object)
      return (checked.push, checked.jsonBytes())
    } catch {
      throw RelayFixtureError(
        code: .invalidData, field: "nip11.json", message: "not a valid push descriptor: \(error)")
    }
  }

  /// The tenant origin's HTTP base (`ws://h:p` → `http://h:p`, the ``RelayOrigin`` of the
  /// tenant origin), nil when it is the fixture's own.
  var tenantHTTPBase: String? {
    tenantOrigin.flatMap { try? RelayOrigin($0) }?.description
  }

  // MARK: Bridges

  /// Ingests a kind 30350 event the bridge verified, from `identity`; a storage failure answers
  /// `error: internal server error`.
  func ingestLease(_ event: VerifiedEvent, identity: String?) -> (accepted: Bool, message: String) {
    do {
      let answer = try relay.ingestLease(event, identity: identity)
      return (answer.accepted, answer.message)
    } catch {
      return (false, Self.internalError)
    }
  }

  /// Hands an event just stored over a bridge (or a duplicate of one) to `PushRelay.didStore`
  /// before the fixture answers; false on a storage failure.
  func stored(_ event: Event) -> Bool {
    do {
      try relay.didStore(event, receivedAt: clock.now())
      return true
    } catch {
      return false
    }
  }

  /// The stored kind 30350 events `filters` return to `identity`, as fixture entries.
  func visibleLeases(_ filters: [Filter], identity: String?) -> [RelayFixtureData.Entry] {
    let events = (try? relay.visibleLeaseEvents(matching: filters, identity: identity))
    return (events ?? []).map { RelayFixtureData.Entry(event: $0, json: $0.jsonBytes()) }
  }

  /// Every outbox row, oldest first.
  func wakes() throws(PushRelayError) -> [Wake] {
    try outbox.wakes()
  }

  /// Stops the worker (waiting for its batch in flight) and removes a temporary state file; the
  /// connections close when the server drops this, their last owner, at `stop()`.
  func stop() async {
    if let task = worker.withLock({ task in
      defer { task = nil }
      return task
    }) {
      relay.stop()
      await task.value
    }
    if let temporaryPath {
      for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: temporaryPath + suffix)
      }
    }
  }
}

/// Channel rosters from the fixture's own stored kind 39002 events signed by NIP-11 `self`: the
/// `p` tags of the current one whose `d` is the channel (newest, a tie to the lower id).
struct FixtureRoster: RosterSource {
  /// The kind of a NIP-29 group member list.
  static let membersKind = EventKind.groupMembers

  /// The relay's own pubkey (NIP-11 `self`); nil: no rosters at all.
  let selfPubkey: String?
  /// The fixture's store as it is now.
  let events: @Sendable () -> EventStore

  func members(ofChannel channel: String, origin: String) -> Set<String>? {
    guard let selfPubkey else { return nil }
    guard let current = events().current(kind: Self.membersKind, pubkey: selfPubkey, d: channel) else {
      return nil
    }
    return Set(current.tags.compactMap { $0.count >= 2 && $0[0] == "p" ? $0[1] : nil })
  }
}
