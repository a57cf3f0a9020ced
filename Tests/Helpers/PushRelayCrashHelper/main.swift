// A test-only helper process for PushRelayTests (not a product): one delivery sweep of a relay's
// push state file, so a test can SIGKILL it between claim and answer and restart it on the same
// file.
//
//   PushRelayCrashHelper STATE GATEWAY_URL NOW_MS PUSH_KEY_HEX KEY_ID TIMEOUT_MS
//
// Prints one line per attempt (`<request_id> <attempt> <recorded>`) after the sweep. Exit status 0
// when the sweep ran, 1 with the error on standard error otherwise, 2 for bad arguments.
import Foundation
import NostrEvent
import NostrHTTP
import NostrPushCore
import NotificationResolver
import PushRelay

func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data((message + "\n").utf8))
  exit(status)
}

/// Every channel has the members given on the command line.
struct FixedRoster: RosterSource {
  var members: Set<String>
  func members(ofChannel channel: String, origin: String) -> Set<String>? { members }
}

let arguments = CommandLine.arguments
guard arguments.count == 8, let now = Int64(arguments[3]), let timeout = Int(arguments[6]),
  let key = try? SecretKey(hex: arguments[4])
else {
  fail(
    "usage: PushRelayCrashHelper STATE GATEWAY_URL NOW_MS PUSH_KEY_HEX KEY_ID TIMEOUT_MS MEMBERS", status: 2)
}

do {
  let database = try PushStateDatabase(path: arguments[1])
  let store = SQLiteLeaseStore(database: database)
  let outbox = SQLiteWakeOutbox(database: database)
  let client = try GatewayClient(
    baseURL: arguments[2], transport: URLSessionHTTPTransport(), timeout: .milliseconds(timeout))
  let worker = DeliveryWorker(
    store: store, outbox: outbox, client: client, pushKeys: [arguments[5]: key],
    roster: FixedRoster(members: Set(arguments[7].split(separator: ",").map(String.init))),
    clock: UnixClock { now })
  for attempt in try await worker.runOnce() {
    print("\(attempt.requestID) \(attempt.attempt) \(attempt.recorded)")
  }
} catch {
  fail("\(error)", status: 1)
}
