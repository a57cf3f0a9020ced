import CSQLite
import EnrichmentCache
import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NotificationResolver

// nostr-push-stress [--wakes 10000] [--in-flight 8] [--query-timeout-ms 300] [--budget-ms 150]
//                   [--fault-rate 0.6] [--seed N] [--workspace DIR]
// nostr-push-stress --bare-urlsession ROUNDS
// nostr-push-stress --websocket BURSTS
// Resolves many wakes in this process against an in-process fixture relay that misbehaves at
// random, and checks that every wake ends within its deadline with a valid result line, that no
// event is presented twice, that the cache passes `PRAGMA integrity_check`, and that descriptors
// and resident memory do not keep growing. Exit 0 when everything held, 1 otherwise.

struct Options {
  var wakes = 10_000
  var inFlight = 8
  var queryTimeoutMilliseconds = 300
  var budgetMilliseconds = 150
  var faultRate = 0.6
  var unreachableRate = 0.02
  var seed: UInt64 = 0x5EED_2026
  var senders = 64
  var workspace = FileManager.default.temporaryDirectory.appendingPathComponent("nostr-push-stress").path
  /// Set by `--bare-urlsession`: run `BareURLSessionProbe` for this many rounds instead of wakes.
  var bareURLSessionRounds: Int?
  /// Set by `--websocket`: run `WebSocketProbe` for this many bursts instead of wakes.
  var webSocketBursts: Int?

  init(_ arguments: [String]) {
    var index = 0
    func value() -> String {
      index += 1
      guard index < arguments.count else { usage() }
      return arguments[index]
    }
    while index < arguments.count {
      switch arguments[index] {
      case "--wakes": wakes = parse(value())
      case "--in-flight": inFlight = parse(value())
      case "--query-timeout-ms": queryTimeoutMilliseconds = parse(value())
      case "--budget-ms": budgetMilliseconds = parse(value())
      case "--fault-rate": faultRate = parse(value())
      case "--seed": seed = parse(value())
      case "--workspace": workspace = value()
      case "--bare-urlsession": bareURLSessionRounds = parse(value())
      case "--websocket": webSocketBursts = parse(value())
      default: usage()
      }
      index += 1
    }
    guard wakes > 0, inFlight > 0, (0...1).contains(faultRate), bareURLSessionRounds ?? 1 > 0 else { usage() }
  }
}

func parse<T: LosslessStringConvertible>(_ text: String) -> T {
  guard let value = T(text) else { usage() }
  return value
}

func usage() -> Never {
  FileHandle.standardError.write(
    Data(
      ("usage: nostr-push-stress [--wakes N] [--in-flight N] [--query-timeout-ms MS] [--budget-ms MS] "
        + "[--fault-rate 0..1] [--seed N] [--workspace DIR]\n"
        + "       nostr-push-stress --bare-urlsession ROUNDS\n"
        + "       nostr-push-stress --websocket BURSTS\n").utf8))
  exit(2)
}

func log(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

let options = Options(Array(CommandLine.arguments.dropFirst()))
if let bursts = options.webSocketBursts {
  try await WebSocketProbe.run(bursts: bursts)
  exit(0)
}
if let rounds = options.bareURLSessionRounds {
  try await BareURLSessionProbe.run(rounds: rounds)
  exit(0)
}
let deadline =
  Duration.milliseconds(options.queryTimeoutMilliseconds + options.budgetMilliseconds)
  + NotificationResolver.deadlineSlack
var random = SplitMix64(seed: options.seed)
try? FileManager.default.removeItem(atPath: options.workspace)
try FileManager.default.createDirectory(atPath: options.workspace, withIntermediateDirectories: true)
let cachePath = options.workspace + "/cache.sqlite"
let started = ContinuousClock.now

// The relay starts empty so its origin is known before the profiles naming it are signed.
let server = RelayFixtureServer(data: RelayFixtureData())
let origin = try await server.start().absoluteString
log("stress: relay \(origin), workspace \(options.workspace), seed \(options.seed)")
let scenario = try StressScenario(
  wakes: options.wakes, senders: options.senders, origin: origin, random: &random)
server.setInformationDocument(scenario.nip11)
var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
png += (0..<4000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
server.setMedia(png, named: "avatar.png")
server.setMedia(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), named: "avatar.svg")
server.setMedia(Array("just text, not an image".utf8), named: "not-an-image.png")
server.setEvents(scenario.records)
log(
  "stress: signed \(scenario.messages.count) messages, \(scenario.records.count) records, "
    + "\(scenario.hostile.count) hostile events in \(started.duration(to: .now))")

/// Everything a wake needs, shared read-only by the wakes in flight.
struct WakeContext: Sendable {
  var cachePath: String
  var avatarDirectory: String
  var relay: RelayOrigin
  var unreachable: RelayOrigin
  var secretKey: SecretKey
  var budget: Duration
  var queryTimeout: Duration

  func wake(_ index: Int, unreachableRelay: Bool) async -> WakeResult {
    let begin = ContinuousClock.now
    let cache = try? EnrichmentCache(path: cachePath, busyTimeout: .milliseconds(250))
    let configuration = try! ResolverConfiguration(
      relay: unreachableRelay ? unreachable : relay, secretKey: secretKey, budget: budget,
      queryTimeout: queryTimeout, avatarDirectory: avatarDirectory)
    let resolution = await NotificationResolver(configuration: configuration, cache: cache).resolve()
    let elapsed = begin.duration(to: .now)
    let line = ResolveLine.text(resolution.plan, elapsedMilliseconds: elapsed.wholeMilliseconds)
    return WakeResult(index: index, elapsed: elapsed, line: line, unreachable: unreachableRelay)
  }
}

/// What one wake produced.
struct WakeResult: Sendable {
  var index: Int
  var elapsed: Duration
  var line: String
  var unreachable: Bool
}

let context = WakeContext(
  cachePath: cachePath, avatarDirectory: options.workspace + "/avatars",
  relay: try RelayOrigin(origin), unreachable: try RelayOrigin("http://127.0.0.1:1"),
  secretKey: scenario.accountKey, budget: .milliseconds(options.budgetMilliseconds),
  queryTimeout: .milliseconds(options.queryTimeoutMilliseconds))

/// Counts of everything the run saw, and every broken promise.
struct Tally {
  let deadline: Duration
  let validMessages: Set<String>
  let hostileIDs: Set<String>
  let server: RelayFixtureServer
  let started: ContinuousClock.Instant
  var completed = 0
  var outcomes: [String: Int] = [:]
  var enrichment: [String: Int] = [:]
  var faultsApplied: [String: Int] = [:]
  var faultsDrawn = 0
  var unreachableWakes = 0
  var presented: [String: Int] = [:]
  var failures: [String] = []
  var maxElapsed = Duration.zero
  var elapsedMilliseconds: [Double] = []
  var samples: [(wakes: Int, descriptors: Int, rssKiB: Int, heapKiB: Int, threads: Int)] = []

  mutating func fail(_ text: String) {
    if failures.count < 50 { log("FAIL: \(text)") }
    failures.append(text)
  }

  mutating func record(_ result: WakeResult) {
    maxElapsed = max(maxElapsed, result.elapsed)
    elapsedMilliseconds.append(
      Double(result.elapsed.components.attoseconds) / 1e15
        + Double(result.elapsed.components.seconds) * 1000)
    if result.unreachable { unreachableWakes += 1 }
    if result.elapsed > deadline { fail("wake \(result.index) took \(result.elapsed) > \(deadline)") }
    guard case .object(let object)? = try? JSONReader().read(result.line),
      let resolved = object["resolved"]?.boolValue
    else {
      fail("wake \(result.index): not a result line: \(result.line.prefix(200))")
      return
    }
    if resolved {
      outcomes["resolved", default: 0] += 1
      guard let id = object["target"]?.objectValue?["event_id"]?.stringValue,
        let title = object["title"]?.stringValue, !title.isEmpty,
        let source = object["enrichment"]?.stringValue
      else {
        fail("wake \(result.index): resolved line without event_id/title/enrichment")
        return
      }
      enrichment[source, default: 0] += 1
      if hostileIDs.contains(id) { fail("wake \(result.index): presented hostile event \(id)") }
      if !validMessages.contains(id) { fail("wake \(result.index): presented unknown event \(id)") }
      if NostrID(title) != nil { fail("wake \(result.index): raw hex title") }
      if title == "IMPOSTOR" || object["subtitle"]?.stringValue == "#IMPOSTOR" {
        fail("wake \(result.index): impostor channel name shown")
      }
      presented[id, default: 0] += 1
      if presented[id]! > 1 { fail("wake \(result.index): event \(id) presented \(presented[id]!) times") }
    } else {
      guard let reason = object["reason"]?.stringValue, FallbackReason(rawValue: reason) != nil,
        object["title"]?.stringValue == FallbackContent.title,
        object["body"]?.stringValue == FallbackContent.body
      else {
        fail("wake \(result.index): fallback line without a valid reason: \(result.line)")
        return
      }
      outcomes[reason, default: 0] += 1
      if result.unreachable, reason != "relay_unreachable", reason != "timeout" {
        fail("wake \(result.index): unreachable relay gave \(reason)")
      }
    }
  }

  mutating func sample(wakes: Int) {
    let process = ProcessSample()
    let (descriptors, heap) = (process.descriptors, process.heapKiB)
    let (rss, threads) = (process.number("VmRSS"), process.number("Threads"))
    samples.append((wakes, descriptors, rss, heap, threads))
    log(
      "stress: after \(wakes) wakes: fds \(descriptors), rss \(rss) KiB, heap in use \(heap) KiB, threads \(threads), "
        + "elapsed \(started.duration(to: .now))")
  }

  mutating func collectFaults() {
    for record in server.requests() {
      if let fault = record.fault { faultsApplied["\(record.path) \(fault)", default: 0] += 1 }
      faultsApplied["requests \(record.path.hasPrefix("/media/") ? "/media/*" : record.path)", default: 0] +=
        1
    }
    server.resetRequestLog()
  }
}

var tally = Tally(
  deadline: deadline, validMessages: Set(scenario.messages.map(\.id)),
  hostileIDs: Set(scenario.hostile.map(\.event.id)), server: server, started: started)
tally.sample(wakes: 0)
/// How many recent messages stay served; older ones are dropped so the relay's store stays bounded.
let servedWindow = 32

/// Feeds the relay one new message (and now and then a hostile event and a fault) per wake and
/// keeps `inFlight` wakes running until all are done.
func drive(_ start: Tally, seed: SplitMix64) async -> Tally {
  var tally = start
  var random = seed
  var served: [Event] = []
  var hostileServed: [Event] = []
  var nextIndex = 0
  var completed = 0
  let sampleEvery = max(1, min(1000, options.wakes / 10))
  await withTaskGroup(of: WakeResult.self) { group in
    func launch() {
      let index = nextIndex
      nextIndex += 1
      served.append(scenario.messages[index])
      if random.next() % 4 == 0 {
        hostileServed.append(scenario.hostile[index % scenario.hostile.count].event)
        if hostileServed.count > 3 { hostileServed.removeFirst() }
      }
      if served.count > servedWindow { served.removeFirst(served.count - servedWindow) }
      server.setEvents(scenario.records + served + hostileServed)
      if index % 50 == 0 { server.setFaults([]) }
      if Double(random.next() % 1000) / 1000 < options.faultRate {
        server.addFault(FaultDeck.draw(&random))
        tally.faultsDrawn += 1
      }
      let unreachableRelay = Double(random.next() % 1000) / 1000 < options.unreachableRate
      group.addTask { await context.wake(index, unreachableRelay: unreachableRelay) }
    }
    while nextIndex < min(options.inFlight, options.wakes) { launch() }
    while let result = await group.next() {
      tally.record(result)
      completed += 1
      if completed % sampleEvery == 0 {
        tally.collectFaults()
        tally.sample(wakes: completed)
      }
      if nextIndex < options.wakes { launch() }
    }
  }
  tally.completed = completed
  return tally
}

tally = await drive(tally, seed: random)
let completed = tally.completed
tally.collectFaults()
// Lingering enrichment (requests still running after a wake returned) ends within one request
// timeout; give it that before the last sample and the cache checks.
server.setFaults([])
try await Task.sleep(for: .seconds(2))
tally.sample(wakes: completed)
await server.stop()

/// `PRAGMA integrity_check` of `path` and the deliveries count of `claimsPath` (claims live in
/// their own file beside the cache), each on a connection of its own.
func inspectCache(_ path: String, claimsPath: String) -> (integrity: String, deliveries: Int) {
  (inspect(path, "PRAGMA integrity_check"), Int(inspect(claimsPath, "SELECT count(*) FROM deliveries")) ?? -1)
}

/// The rows `sql` gives on a read-only connection of its own to `path`, joined by `; `.
func inspect(_ path: String, _ sql: String) -> String {
  var database: OpaquePointer?
  guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
    return "cannot open"
  }
  defer { sqlite3_close(database) }
  func text(_ sql: String) -> String {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else { return "prepare failed" }
    defer { sqlite3_finalize(statement) }
    var rows: [String] = []
    while sqlite3_step(statement) == SQLITE_ROW {
      rows.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "null")
    }
    return rows.joined(separator: "; ")
  }
  return text(sql)
}

let (integrity, deliveries) = inspectCache(cachePath, claimsPath: cachePath + ".claims")
if integrity != "ok" { tally.fail("integrity_check: \(integrity)") }
let presentedCount = tally.presented.count
if deliveries < presentedCount {
  log(
    "note: \(presentedCount - deliveries) presented events have no delivery row"
  )
}
let sorted = tally.elapsedMilliseconds.sorted()
func percentile(_ p: Double) -> Double {
  sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}
let first = tally.samples.first!
let middle = tally.samples[tally.samples.count / 2]
let last = tally.samples.last!
let total = started.duration(to: .now)

func row(_ dictionary: [String: Int]) -> String {
  dictionary.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
}
print(
  "wakes: \(completed) in \(total) (in flight \(options.inFlight), query timeout \(options.queryTimeoutMilliseconds) ms, "
    + "budget \(options.budgetMilliseconds) ms, deadline \(deadline), seed \(options.seed))")
print("outcomes: \(row(tally.outcomes))")
print("enrichment: \(row(tally.enrichment))")
print("faults drawn: \(tally.faultsDrawn); unreachable-relay wakes: \(tally.unreachableWakes)")
print("relay requests and faults applied: \(row(tally.faultsApplied))")
print(
  String(
    format: "wake time ms: p50 %.1f, p99 %.1f, max %.1f (deadline %d)", percentile(0.5), percentile(0.99),
    sorted.last ?? 0, options.queryTimeoutMilliseconds + options.budgetMilliseconds + 1000))
print(
  "presented: \(presentedCount) distinct events, \(tally.presented.values.filter { $0 > 1 }.count) presented twice or more; "
    + "deliveries rows: \(deliveries)")
print("integrity_check: \(integrity)")
print(
  "samples (wakes: fds, rss KiB, heap in use KiB, threads): "
    + tally.samples.map { "\($0.wakes): \($0.descriptors), \($0.rssKiB), \($0.heapKiB), \($0.threads)" }
    .joined(separator: " | "))
print(
  "fds start \(first.descriptors) → middle \(middle.descriptors) → end \(last.descriptors); "
    + "rss KiB start \(first.rssKiB) → middle \(middle.rssKiB) → end \(last.rssKiB); "
    + "heap in use KiB start \(first.heapKiB) → middle \(middle.heapKiB) → end \(last.heapKiB)")
print("failures: \(tally.failures.count)")
exit(tally.failures.isEmpty ? 0 : 1)
