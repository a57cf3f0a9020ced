// A test-only helper process for PushRelayTests (not a product): one relay process on a
// PostgreSQL database, so a test shows what several processes on one database do (leases accepted
// here and matched there, racing accepts and stores, two workers, a worker killed holding a claim).
//
//   PushRelayPostgresHelper CONNINFO NIP11 PUSH_KEY_HEX KEY_ID GATEWAY_URL|- FENCE_MS MEMBERS
//
// Builds a PushRelay on PostgresLeaseStore, PostgresWakeOutbox (database clock, claims held
// FENCE_MS) and PostgresWakeListener, on the system clock; with a gateway URL its delivery worker
// runs (fallback timer 60 s, so only NOTIFY wakes it promptly). Every channel's roster is MEMBERS
// (comma-separated pubkeys) plus those a `store` line adds. Prints `ready <listener backend pid>`,
// then answers each line of standard input with one line:
//   store<TAB>MEMBERS<TAB>EVENT_JSON   -> `stored` (committed)
//   accept<TAB>EVENT_JSON              -> `accepted <message>` or `refused <message>`
//   quit                               -> exits 0
// A storage failure answers `error <message>`. Exit 2 for bad arguments, 1 when the relay cannot
// start.
import Foundation
import NostrEvent
import NostrHTTP
import NostrPushCore
import PushDescriptor
import PushLease
import PushRelay
import PushRelayPostgres

func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data((message + "\n").utf8))
  exit(status)
}

func answer(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Every channel lists the same members, which `store` lines extend.
final class GrowingRoster: RosterSource, Sendable {
  private let members: Locked<Set<String>>
  init(_ members: Set<String>) { self.members = Locked(members) }
  func add(_ more: some Sequence<String>) { members.withLock { $0.formUnion(more) } }
  func members(ofChannel channel: String, origin: String) -> Set<String>? { members.current }
}

let arguments = CommandLine.arguments
guard arguments.count == 8, let key = try? SecretKey(hex: arguments[3]), let fence = Int64(arguments[6]),
  let descriptorBytes = FileManager.default.contents(atPath: arguments[2])
else {
  fail(
    "usage: PushRelayPostgresHelper CONNINFO NIP11 PUSH_KEY_HEX KEY_ID GATEWAY_URL|- FENCE_MS MEMBERS",
    status: 2)
}
let roster = GrowingRoster(Set(arguments[7].split(separator: ",").map(String.init)))

let relay: PushRelay
let listener: PostgresWakeListener
do {
  let descriptor = try PushDescriptor(strictJSON: [UInt8](descriptorBytes))
  let database = try PostgresDatabase(connectionString: arguments[1])
  listener = try PostgresWakeListener(database: database)
  let gateway =
    arguments[5] == "-"
    ? nil
    : try GatewayClient(baseURL: arguments[5], transport: URLSessionHTTPTransport(), timeout: .seconds(10))
  relay = try PushRelay(
    validator: try LeaseValidator(descriptor: descriptor, pushKeys: [arguments[4]: key]),
    store: try PostgresLeaseStore(database: database),
    outbox: try PostgresWakeOutbox(database: database, clock: .database, fenceMilliseconds: fence),
    descriptor: descriptor, roster: roster, gateway: gateway, wakeSignal: listener,
    fallbackInterval: .seconds(60))
} catch {
  fail("\(error)", status: 1)
}
// Detached: the main thread blocks reading standard input below.
let worker = Task.detached { await relay.run() }
answer("ready \(listener.backendProcessID)")

while let line = readLine() {
  let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
  do {
    switch fields.first {
    case "store" where fields.count == 3:
      roster.add(fields[1].split(separator: ",").map(String.init))
      let event = try Event(json: Array(fields[2].utf8))
      try relay.didStore(event, receivedAt: UnixClock.system.now())
      answer("stored")
    case "accept" where fields.count == 2:
      let event = try Event(json: Array(fields[1].utf8))
      guard let verified = VerifiedEvent(event) else {
        answer("refused invalid: bad id or signature")
        continue
      }
      let result = try relay.ingestLease(verified, identity: event.pubkey)
      answer("\(result.accepted ? "accepted" : "refused") \(result.message)")
    case "quit":
      relay.stop()
      exit(0)
    default:
      answer("error unknown command")
    }
  } catch {
    answer("error \(error)")
  }
}
relay.stop()
_ = worker
