import EnrichmentCache
import Foundation
import NostrEvent

extension BenchmarkRegistry {
  /// The cache rows of `Docs/Performance.md`: open an existing file; one profile + channel + membership
  /// lookup (p50, p99) in a cache of 10 000 profiles and 1 000 channels; a 256-profile write batch —
  /// each beside an empty `SELECT 1` on the same connection — and the time the app spends enqueuing
  /// an import of 4 profiles and 4 channel pairs beside the same import done synchronously.
  static func enrichmentCacheBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let fixture = try CacheBenchmarkFixture(lookupsPerRepetition: quick ? 500 : 2_000)
    let module = "EnrichmentCache"
    let selectOne = { Stopwatch.seconds { _ = try? fixture.cache.selectOne() } * 1000 }

    let open = Benchmark(
      module: module, name: "open an existing cache file (10 000 profiles, 1 000 channels)", unit: "ms",
      baselineName: "SELECT 1 on the same connection", target: "≤ 5 ms", baseline: selectOne,
      measured: { try Stopwatch.seconds { _ = try EnrichmentCache(path: fixture.path) } * 1000 },
      passes: { $0.median <= 5 })

    let lookups = LookupFigures(fixture: fixture)
    let lookupP50 = Benchmark(
      module: module, name: "profile + channel + membership lookup, p50", unit: "ms",
      baselineName: "SELECT 1 on the same connection, p50", target: "report",
      baseline: { lookups.selectPercentile(50) }, measured: { try lookups.lookupPercentile(50) },
      passes: { _ in nil })
    let lookupP99 = Benchmark(
      module: module, name: "profile + channel + membership lookup, p99", unit: "ms",
      baselineName: "SELECT 1 on the same connection, p99", target: "≤ 0.5 ms",
      baseline: { lookups.selectPercentile(99) }, measured: { try lookups.lookupPercentile(99) },
      passes: { $0.median <= 0.5 })
    let lookupCPU = Benchmark(
      module: module, name: "profile + channel + membership lookup, p99 of thread CPU time", unit: "ms",
      baselineName: "SELECT 1 on the same connection, p99 CPU", target: "report (wall p99 minus preemption)",
      baseline: { lookups.selectPercentile(99, clock: .threadCPU) },
      measured: { try lookups.lookupPercentile(99, clock: .threadCPU) }, passes: { _ in nil })
    let snapshot = Benchmark(
      module: module, name: "the same three records via lookupSnapshot (one read transaction), p99",
      unit: "ms",
      baselineName: "SELECT 1 on the same connection, p99", target: "report",
      baseline: { lookups.selectPercentile(99) }, measured: { try lookups.snapshotPercentile(99) },
      passes: { _ in nil })

    let batch = Benchmark(
      module: module, name: "256-profile write batch (one transaction)", unit: "ms",
      baselineName: "SELECT 1 on the same connection", target: "≤ 25 ms", baseline: selectOne,
      measured: { try fixture.writeBatch() * 1000 }, passes: { $0.median <= 25 })

    let imports = try ImportFigures(fixture: fixture, perRepetition: quick ? 5 : 20)
    let enqueue = Benchmark(
      module: module, name: "import enqueue: 4 profiles + 4 channel pairs (caller's time), median",
      unit: "ms",
      baselineName: "the same import done synchronously on the caller", target: "≤ 0.3 ms",
      baseline: { try imports.synchronous() }, measured: { try imports.enqueue() },
      passes: { $0.median <= 0.3 })

    let notes = [
      "cache: \(CacheBenchmarkFixture.profileCount) profiles, \(CacheBenchmarkFixture.channelCount) channels "
        + "with \(CacheBenchmarkFixture.membersPerChannel)-member rosters, one account; WAL, synchronous=NORMAL; "
        + "file under \(fixture.folder.path) (removed by the next run)",
      "lookup rows: p50/p99 over \(lookups.count) lookups per repetition, random keys; import rows: median of "
        + "\(imports.perRepetition) imports per repetition, each waited for before the next",
    ]
    return ([open, lookupP50, lookupP99, lookupCPU, snapshot, batch, enqueue], notes)
  }
}

/// A cache file filled once for the cache rows, and the connection they share.
private final class CacheBenchmarkFixture {
  static let profileCount = 10_000
  static let channelCount = 1_000
  static let membersPerChannel = 20
  /// The folder of the last run, removed when the next run starts.
  static let folderName = "nostrpush-cache-bench"

  let folder: URL
  let path: String
  let cache: EnrichmentCache
  let relay: RelayOrigin
  let account = randomHex()
  let now = Int64(Date().timeIntervalSince1970)
  let senders: [String]
  let channels: [String]
  let lookupsPerRepetition: Int

  init(lookupsPerRepetition: Int) throws {
    self.lookupsPerRepetition = lookupsPerRepetition
    folder = FileManager.default.temporaryDirectory.appendingPathComponent(Self.folderName)
    try? FileManager.default.removeItem(at: folder)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    path = folder.appendingPathComponent("cache.sqlite").path
    relay = try RelayOrigin("wss://bench.example")
    cache = try EnrichmentCache(path: path)
    let senders = (0..<Self.profileCount).map { _ in randomHex() }
    let channels = (0..<Self.channelCount).map { "channel-\($0)" }
    self.senders = senders
    self.channels = channels
    for start in stride(from: 0, to: senders.count, by: CacheImporter.profilesPerTransaction) {
      let records = senders[start..<min(senders.count, start + CacheImporter.profilesPerTransaction)].map {
        Profile(
          pubkey: $0, displayName: "Sender \($0.prefix(8))", pictureURL: "https://img.example/\($0).png",
          eventID: randomHex(), createdAt: 1000)
      }
      _ = try cache.storeProfiles(records, account: account, relay: relay, now: now)
    }
    let relayKey = randomHex()
    let pairs = try channels.enumerated().map { index, channel in
      let members = (0..<Self.membersPerChannel).map { senders[(index * 31 + $0 * 7) % senders.count] }
      let metadata = ChannelMetadata(
        channelID: channel, name: "Name of \(channel)", type: .stream, signer: relayKey, eventID: randomHex(),
        createdAt: 1000)
      let roster = try Roster(
        channelID: channel, memberPubkeys: members, signer: relayKey, eventID: randomHex(), createdAt: 1000)
      return (Optional(metadata), Optional(roster))
    }
    _ = try cache.storeChannels(pairs, account: account, relay: relay, now: now)
  }

  /// Seconds to write 256 new profiles in one transaction.
  func writeBatch() throws -> Double {
    let records = (0..<256).map { _ in
      Profile(pubkey: randomHex(), displayName: "New", pictureURL: nil, eventID: randomHex(), createdAt: 5)
    }
    return try Stopwatch.seconds {
      _ = try cache.storeProfiles(records, account: account, relay: relay, now: now)
    }
  }
}

/// Percentiles of lookups and of `SELECT 1` over many calls, in milliseconds of wall time or of
/// the calling thread's CPU time (which leaves out time the thread spent preempted).
private struct LookupFigures {
  enum Clock {
    case wall
    case threadCPU
  }

  let fixture: CacheBenchmarkFixture
  var count: Int { fixture.lookupsPerRepetition }

  func lookupPercentile(_ percentile: Int, clock: Clock = .wall) throws -> Double {
    try timePercentile(percentile, clock: clock) { sender, channel in
      _ = try fixture.cache.lookupProfile(
        account: fixture.account, relay: fixture.relay, pubkey: sender, now: fixture.now)
      _ = try fixture.cache.lookupChannel(
        account: fixture.account, relay: fixture.relay, channelID: channel, now: fixture.now)
      _ = try fixture.cache.lookupMembership(
        account: fixture.account, relay: fixture.relay, channelID: channel, member: sender,
        now: fixture.now)
    }
  }

  func snapshotPercentile(_ percentile: Int) throws -> Double {
    try timePercentile(percentile, clock: .wall) { sender, channel in
      _ = try fixture.cache.lookupSnapshot(
        account: fixture.account, relay: fixture.relay, sender: sender, channelID: channel,
        now: fixture.now)
    }
  }

  /// The percentile of `count` timed calls of `body`, each on a random sender and channel.
  private func timePercentile(
    _ percentile: Int, clock: Clock, _ body: (_ sender: String, _ channel: String) throws -> Void
  ) throws -> Double {
    var times: [Double] = []
    times.reserveCapacity(count)
    for _ in 0..<count {
      let sender = fixture.senders.randomElement()!
      let channel = fixture.channels.randomElement()!
      times.append(try Self.milliseconds(clock) { try body(sender, channel) })
    }
    return Self.percentile(times, percentile)
  }

  func selectPercentile(_ percentile: Int, clock: Clock = .wall) -> Double {
    let times = (0..<count).map { _ in Self.milliseconds(clock) { _ = try? fixture.cache.selectOne() } }
    return Self.percentile(times, percentile)
  }

  static func percentile(_ values: [Double], _ percentile: Int) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, sorted.count * percentile / 100)]
  }

  static func milliseconds(_ clock: Clock, _ body: () throws -> Void) rethrows -> Double {
    switch clock {
    case .wall:
      return try Stopwatch.seconds(body) * 1000
    case .threadCPU:
      let start = threadCPUNanoseconds()
      try body()
      return Double(threadCPUNanoseconds() - start) / 1_000_000
    }
  }

  static func threadCPUNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
  }
}

/// Imports of 4 signed profiles and 4 signed channel pairs, enqueued or done synchronously, in
/// milliseconds (median of `perRepetition` imports; each for a fresh account so it really writes).
private struct ImportFigures {
  let fixture: CacheBenchmarkFixture
  let perRepetition: Int
  let importer: CacheImporter
  let relayKey: String
  let profiles: [Event]
  let pairs: [ChannelEvents]

  init(fixture: CacheBenchmarkFixture, perRepetition: Int) throws {
    self.fixture = fixture
    self.perRepetition = perRepetition
    importer = CacheImporter(cache: fixture.cache)
    let key = SecretKey.generate()
    relayKey = key.publicKeyHex
    let profiles = try (0..<4).map { _ in
      let author = SecretKey.generate()
      return try UnsignedEvent(
        pubkey: author.publicKeyHex, createdAt: fixture.now, kind: 0, tags: [],
        content: #"{"name":"bench","display_name":"Bench Sender","picture":"https://img.example/p.png"}"#
      ).signed(with: author)
    }
    self.profiles = profiles
    pairs = try (0..<4).map { index in
      ChannelEvents(
        metadata: try UnsignedEvent(
          pubkey: key.publicKeyHex, createdAt: fixture.now, kind: 39000,
          tags: [["d", "import-\(index)"], ["name", "Imported \(index)"], ["t", "stream"]], content: ""
        ).signed(with: key),
        membership: try UnsignedEvent(
          pubkey: key.publicKeyHex, createdAt: fixture.now, kind: 39002,
          tags: [["d", "import-\(index)"]] + profiles.map { ["p", $0.pubkey] }, content: ""
        ).signed(with: key))
    }
  }

  func enqueue() throws -> Double {
    var times: [Double] = []
    for _ in 0..<perRepetition {
      let batch = ImportBatch(
        account: randomHex(), relay: fixture.relay, relayKey: relayKey, profiles: profiles, channels: pairs)
      var ticket: ImportTicket?
      times.append(try Stopwatch.seconds { ticket = try importer.enqueue(batch) } * 1000)
      if let ticket { try waitBlocking(ticket) }
    }
    return BenchmarkRunner.median(times)
  }

  func synchronous() throws -> Double {
    var times: [Double] = []
    for _ in 0..<perRepetition {
      let account = randomHex()
      times.append(
        try Stopwatch.seconds {
          for event in profiles {
            try fixture.cache.storeProfile(
              event: event, account: account, relay: fixture.relay, now: fixture.now)
          }
          for pair in pairs {
            try fixture.cache.storeChannel(
              metadata: pair.metadata, membership: pair.membership, relayKey: relayKey, account: account,
              relay: fixture.relay, now: fixture.now)
          }
        } * 1000)
    }
    return BenchmarkRunner.median(times)
  }

  /// Blocks until the import is written (outside the timed part).
  private func waitBlocking(_ ticket: ImportTicket) throws {
    let importer = importer
    let failure = try blockingRun {
      try await importer.wait(for: ticket, timeout: .seconds(30)).failure?.error
    }
    if let failure { throw failure }
  }
}

private func randomHex() -> String {
  Hex.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
}
