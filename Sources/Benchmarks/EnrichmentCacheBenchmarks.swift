import EnrichmentCache
import Foundation
import NostrEvent

/// The cache rows of `performance.md`: open an existing file, one profile + channel + membership
/// lookup (p50, p99), a 256-profile write batch, each beside an empty `SELECT 1` on the same
/// connection; and the time the app spends enqueuing an import of 4 profiles and 4 channel pairs
/// beside the same import done synchronously.
enum EnrichmentCacheBenchmarks {
  /// Profiles in the cache the lookups run against.
  static let profileCount = 10_000
  /// Channels (metadata and a 20-member roster each) in that cache.
  static let channelCount = 1_000
  /// Repetitions of each figure; the median is reported with min and max.
  static let repetitions = 7

  /// One measured figure in milliseconds over the repetitions.
  struct Figure {
    var name: String
    var samples: [Double]
    var target: String

    var median: Double { samples.sorted()[samples.count / 2] }
    var line: String {
      let sorted = samples.sorted()
      return String(
        format: "%@: median %.4f ms (min %.4f, max %.4f) target %@", name, median, sorted.first ?? 0,
        sorted.last ?? 0, target)
    }
  }

  /// Builds the caches in a temporary folder and measures every row.
  static func run() throws -> [Figure] {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "cache-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("cache.sqlite").path
    let relay = try RelayOrigin("wss://bench.example")
    let account = randomHex()
    let now = Int64(Date().timeIntervalSince1970)
    let relayKey = randomHex()
    let senders = (0..<profileCount).map { _ in randomHex() }
    let channels = (0..<channelCount).map { "channel-\($0)" }
    do {
      let cache = try EnrichmentCache(path: path)
      for start in stride(from: 0, to: profileCount, by: 256) {
        let records = senders[start..<min(profileCount, start + 256)].map { sender in
          Profile(
            pubkey: sender, displayName: "Sender \(sender.prefix(8))",
            pictureURL: "https://img.example/\(sender).png",
            eventID: randomHex(), createdAt: 1000)
        }
        _ = try cache.storeProfiles(records, account: account, relay: relay, now: now)
      }
      let pairs = try channels.map { channel in
        (
          Optional(
            ChannelMetadata(
              channelID: channel, name: "Name of \(channel)", type: .stream, signer: relayKey,
              eventID: randomHex(),
              createdAt: 1000)),
          Optional(
            try Roster(
              channelID: channel,
              memberPubkeys: (0..<20).map { senders[($0 * 37 + channel.count) % profileCount] },
              signer: relayKey, eventID: randomHex(), createdAt: 1000))
        )
      }
      _ = try cache.storeChannels(pairs, account: account, relay: relay, now: now)
    }

    var figures: [Figure] = []
    var open = Figure(name: "cache open existing file", samples: [], target: "<= 5 ms")
    for _ in 0..<repetitions {
      open.samples.append(try milliseconds { _ = try EnrichmentCache(path: path) })
    }
    figures.append(open)

    let cache = try EnrichmentCache(path: path)
    var baseline = Figure(name: "baseline SELECT 1 (same connection), p50", samples: [], target: "-")
    var p50 = Figure(name: "lookup profile+channel+membership p50", samples: [], target: "-")
    var p99 = Figure(name: "lookup profile+channel+membership p99", samples: [], target: "<= 0.5 ms")
    for _ in 0..<repetitions {
      var selects: [Double] = []
      var lookups: [Double] = []
      for _ in 0..<2000 {
        selects.append(try milliseconds { _ = try cache.selectOne() })
        let sender = senders.randomElement()!
        let channel = channels.randomElement()!
        lookups.append(
          try milliseconds {
            _ = try cache.lookupProfile(account: account, relay: relay, pubkey: sender, now: now)
            _ = try cache.lookupChannel(account: account, relay: relay, channelID: channel, now: now)
            _ = try cache.lookupMembership(
              account: account, relay: relay, channelID: channel, member: sender, now: now)
          })
      }
      selects.sort()
      lookups.sort()
      baseline.samples.append(selects[selects.count / 2])
      p50.samples.append(lookups[lookups.count / 2])
      p99.samples.append(lookups[lookups.count * 99 / 100])
    }
    figures += [baseline, p50, p99]

    var batch = Figure(name: "256-profile write batch", samples: [], target: "<= 25 ms")
    for _ in 0..<repetitions {
      let records = (0..<256).map { _ in
        Profile(pubkey: randomHex(), displayName: "New", pictureURL: nil, eventID: randomHex(), createdAt: 5)
      }
      batch.samples.append(
        try milliseconds { _ = try cache.storeProfiles(records, account: account, relay: relay, now: now) })
    }
    figures.append(batch)
    figures += try importFigures(cache: cache, relay: relay, now: now)
    return figures
  }

  /// Enqueue time of 4 profiles + 4 channel pairs, beside the same import done synchronously.
  private static func importFigures(cache: EnrichmentCache, relay: RelayOrigin, now: Int64) throws -> [Figure]
  {
    let importer = CacheImporter(cache: cache)
    let relayKey = SecretKey.generate()
    let account = randomHex()
    var enqueue = Figure(
      name: "import enqueue 4 profiles + 4 channel pairs", samples: [], target: "<= 0.3 ms")
    var synchronous = Figure(name: "baseline: same import done synchronously", samples: [], target: "-")
    for repetition in 0..<repetitions {
      let profiles = try (0..<4).map { _ in
        let key = SecretKey.generate()
        return try UnsignedEvent(
          pubkey: key.publicKeyHex, createdAt: now, kind: 0, tags: [],
          content: #"{"name":"bench","picture":"https://img.example/p.png"}"#
        ).signed(with: key)
      }
      let pairs = try (0..<4).map { index in
        let channel = "import-\(repetition)-\(index)"
        return ChannelEvents(
          metadata: try UnsignedEvent(
            pubkey: relayKey.publicKeyHex, createdAt: now, kind: 39000,
            tags: [["d", channel], ["name", "Imported"], ["t", "stream"]], content: ""
          ).signed(with: relayKey),
          membership: try UnsignedEvent(
            pubkey: relayKey.publicKeyHex, createdAt: now, kind: 39002,
            tags: [["d", channel]] + profiles.map { ["p", $0.pubkey] }, content: ""
          ).signed(with: relayKey))
      }
      let batch = ImportBatch(
        account: account, relay: relay, relayKey: relayKey.publicKeyHex, profiles: profiles, channels: pairs)
      var ticket: ImportTicket?
      enqueue.samples.append(try milliseconds { ticket = try importer.enqueue(batch) })
      if let ticket { waitBlocking(importer, ticket) }
      let other = randomHex()
      synchronous.samples.append(
        try milliseconds {
          for event in profiles {
            try cache.storeProfile(event: event, account: other, relay: relay, now: now)
          }
          for pair in pairs {
            try cache.storeChannel(
              metadata: pair.metadata, membership: pair.membership, relayKey: relayKey.publicKeyHex,
              account: other,
              relay: relay, now: now)
          }
        })
    }
    return [enqueue, synchronous]
  }

  private static func waitBlocking(_ importer: CacheImporter, _ ticket: ImportTicket) {
    let done = DispatchSemaphore(value: 0)
    Task {
      _ = try? await importer.wait(for: ticket, timeout: .seconds(30))
      done.signal()
    }
    done.wait()
  }

  private static func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
  }

  private static func randomHex() -> String {
    Hex.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
  }
}
