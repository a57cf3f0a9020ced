// A test-only helper process for EnrichmentCacheTests (not a product): writes profile records to a
// cache file one transaction at a time and prints each acknowledged pubkey on its own line, so a
// test can run two writers at once or kill one with SIGKILL and check what was acknowledged.
//
//   CacheStressHelper write PATH ACCOUNT WRITER COUNT
//
// Record i of writer w has the pubkey `%02x` w followed by i as 62 hex digits. Exit status 0 when
// every write committed, 1 with the error on standard error otherwise, 2 for bad arguments.
import EnrichmentCache
import Foundation
import NostrEvent

func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data((message + "\n").utf8))
  exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count == 6, arguments[1] == "write", let writer = UInt8(arguments[4]),
  let count = Int(arguments[5])
else { fail("usage: CacheStressHelper write PATH ACCOUNT WRITER COUNT", status: 2) }
let path = arguments[2]
let account = arguments[3]

do {
  let relay = try RelayOrigin("wss://stress.example")
  let cache = try EnrichmentCache(path: path)
  for index in 0..<count {
    let pubkey = String(format: "%02x%062x", writer, index)
    let record = Profile(
      pubkey: pubkey, displayName: "writer \(writer) record \(index)", pictureURL: nil, eventID: pubkey,
      createdAt: Int64(index))
    let outcome = try cache.storeProfiles([record], account: account, relay: relay, now: 1_800_000_000)
    guard outcome == [.stored] else { fail("record \(index): \(outcome)", status: 1) }
    FileHandle.standardOutput.write(Data((pubkey + "\n").utf8))
  }
} catch {
  fail("CacheStressHelper: \(error)", status: 1)
}
