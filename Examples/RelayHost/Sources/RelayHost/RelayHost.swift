import NostrEvent
import NostrHTTP
import NostrJSON
import NostrPushCore
import PushDescriptor
import PushLease
import PushRelay

/// A relay's push side, wired from `PushRelay`'s public parts: the NIP-11 document it serves, the
/// EVENT handler's two push calls, and the delivery worker. The relay's own storage, sockets and
/// NIP-42 stay the relay's; this is what it adds.
public final class RelayHost: Sendable {
  /// The relay's NIP-11 document with its push descriptor, checked as clients check it.
  public let document: RelayDocument
  /// The push side.
  public let push: PushRelay
  /// The durable wake outbox (for an operator's status page, and the tests).
  public let outbox: SQLiteWakeOutbox

  // docs: wire begin
  /// Wires the push side over one SQLite state file at `statePath`, opening leases with
  /// `pushKeys` (key id → secret) and delivering to the gateway at `gatewayURL`.
  ///
  /// - Throws: when the descriptor would not pass a client's strict check, or a key or URL is
  ///   refused.
  public init(
    information: RelayInformation, descriptor: PushDescriptor, pushKeys: [String: SecretKey],
    statePath: String,
    roster: any RosterSource, gatewayURL: String, clock: UnixClock
  ) throws {
    let document = RelayDocument(information: information, push: descriptor)
    _ = try RelayDocument(bytes: document.jsonBytes())  // refuse to start with a descriptor no client accepts
    let database = try PushStateDatabase(path: statePath)
    let outbox = SQLiteWakeOutbox(database: database)
    push = try PushRelay(
      validator: try LeaseValidator(descriptor: descriptor, pushKeys: pushKeys),
      store: SQLiteLeaseStore(database: database), outbox: outbox,
      descriptor: descriptor, roster: roster,
      gateway: try GatewayClient(baseURL: gatewayURL, transport: URLSessionHTTPTransport.shared), clock: clock
    )
    self.document = document
    self.outbox = outbox
  }
  // docs: wire end
}

/// The relay's channel rosters as the matcher reads them: who an event of a channel may wake.
/// A real relay answers from its NIP-29 membership table.
public struct ChannelRosters: RosterSource {
  /// Channel id → member pubkeys; a channel absent here wakes no one.
  public var members: [String: Set<String>]

  /// Rosters from a table.
  public init(_ members: [String: Set<String>]) { self.members = members }

  /// The members of `channel`, nil when it has no roster.
  public func members(ofChannel channel: String, origin: String) -> Set<String>? { members[channel] }
}

extension RelayHost {
  /// `GET /` with `Accept: application/nostr+json`: the document's bytes.
  public func informationDocument() -> [UInt8] { document.jsonBytes() }
}

extension RelayHost {
  // docs: event begin
  /// The EVENT handler for an event whose id and signature the socket layer verified, sent on a
  /// connection authenticated (NIP-42) as `identity`: the `OK` answer.
  public func handle(_ event: VerifiedEvent, identity: String?, receivedAt: Int64) -> (
    accepted: Bool, message: String
  ) {
    if event.event.kind == LeaseBuilder.kind {
      // A lease is never stored as an ordinary event: PushRelay judges and keeps it.
      do {
        let answer = try push.ingestLease(event, identity: identity)
        return (answer.accepted, answer.message)
      } catch {
        return (false, "error: internal server error")
      }
    }
    // … the relay stores the event in its own storage first, then:
    do {
      try push.didStore(event.event, receivedAt: receivedAt)  // match and enqueue wakes
      return (true, "")
    } catch {
      return (false, "error: internal server error")  // the client's resend completes it
    }
  }
  // docs: event end
}
