import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting

extension BenchmarkRegistry {
  /// The extension's memory row of `Docs/Performance.md`: peak RSS of `nostr-push resolve` (cold cache)
  /// against answers that keep within every byte cap but hold about 160 000 tags, a 28 000-member
  /// roster and a 512 KiB avatar, beside the same `resolve` against a plain answer, measured
  /// alternately in the same run (`/usr/bin/time -v`, "Maximum resident set size").
  static func resolveBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    guard FileManager.default.isExecutableFile(atPath: ProcessProbe.timePath) else {
      return ([], ["resolve rows skipped: \(ProcessProbe.timePath) not found"])
    }
    let nostrPush = BenchBinaries.folder.appendingPathComponent("nostr-push").path
    guard FileManager.default.isExecutableFile(atPath: nostrPush) else {
      return (
        [], ["resolve rows skipped: \(nostrPush) not found (swift build -c release --product nostr-push)"]
      )
    }
    let fixture = try HostileResolveFixture(nostrPush: nostrPush)
    let row = Benchmark(
      module: "nostr-push (process)",
      name: "extension: resolve against hostile answers (\(fixture.hostileTags) tags, a "
        + "\(HostileResolveFixture.rosterMembers)-member roster, a 512 KiB avatar): peak RSS",
      unit: "MiB", baselineName: "the same resolve against a plain answer", target: "≤ baseline + 4 MiB",
      baseline: { try fixture.run(hostile: false).rssMiB },
      measured: { try fixture.run(hostile: true).rssMiB },
      passes: { summary in summary.baselineMedian.map { summary.median <= $0 + 4 } })
    let note =
      "resolve memory row: two in-process fixture relays (plain, hostile) with fixed clocks; hostile = "
      + "\(HostileResolveFixture.paddedMessages) messages of \(HostileResolveFixture.tagsPerMessage) tags "
      + "beside the newest plain one (one /query answer under 1 MiB), channel metadata of "
      + "\(HostileResolveFixture.metadataTags) tags (under 64 KiB), a roster of "
      + "\(HostileResolveFixture.rosterMembers) members (under 2 MiB) and a 512 KiB PNG avatar; plain = "
      + "the message, a 3-member roster and a 1 KiB avatar; each run a new cache"
    return ([row], [note])
  }
}

/// Two fixture relays for one account and one sender: one answering plainly, one answering with
/// everything as large as its caps allow.
final class HostileResolveFixture {
  static let now: Int64 = 1_767_226_200
  static let channel = "3f6c2b1e-9a4d-4e7b-8c21-5d0f7a9e6b13"
  /// Messages padded with tags, older than the presented one (the query's limit is 10).
  static let paddedMessages = 9
  /// Tags of each padded message (`["t"]`, six bytes each in the answer).
  static let tagsPerMessage = 14_000
  /// Tags of the hostile channel metadata.
  static let metadataTags = 5_500
  /// Members of the hostile roster (`["p","<hex>"]`, 72 bytes each).
  static let rosterMembers = 28_000

  let nostrPush: String
  let workspace: URL
  let keyFile: String
  let plain: RelayFixtureServer
  let hostile: RelayFixtureServer
  private var runNumber = 0

  /// The tags the hostile answers hold in all.
  var hostileTags: Int {
    Self.paddedMessages * Self.tagsPerMessage + Self.metadataTags + Self.rosterMembers
  }

  init(nostrPush: String) throws {
    self.nostrPush = nostrPush
    workspace = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nostrpush-resolve-memory-bench")
    try? FileManager.default.removeItem(at: workspace)
    try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
    // Test keys, made for this run.
    let account = SecretKey.generate()
    let sender = SecretKey.generate()
    let relayKey = SecretKey.generate()
    let accountHex = account.publicKeyHex
    keyFile = workspace.appendingPathComponent("account.key").path
    try Data(Self.secretHex(account).utf8).write(to: URL(fileURLWithPath: keyFile))

    func sign(_ key: SecretKey, kind: Int, tags: [[String]], content: String, age: Int64) throws -> Event {
      try UnsignedEvent(
        pubkey: key.publicKeyHex, createdAt: Self.now - age, kind: kind, tags: tags, content: content
      ).signed(with: key)
    }
    let message = try sign(
      sender, kind: 9, tags: [["h", Self.channel], ["p", accountHex]], content: "Lunch at noon?", age: 10)
    let padding = try (0..<Self.paddedMessages).map { index in
      try sign(
        sender, kind: 9,
        tags: [["h", Self.channel], ["p", accountHex]] + Array(repeating: ["t"], count: Self.tagsPerMessage),
        content: "padding \(index)", age: 100 + Int64(index))
    }
    let plainMetadata = try sign(
      relayKey, kind: 39000, tags: [["d", Self.channel], ["name", "general"], ["t", "stream"]], content: "",
      age: 900)
    let hostileMetadata = try sign(
      relayKey, kind: 39000,
      tags: [["d", Self.channel], ["name", "general"], ["t", "stream"]]
        + Array(repeating: ["t"], count: Self.metadataTags),
      content: "", age: 900)
    let plainRoster = try sign(
      relayKey, kind: 39002,
      tags: [
        ["d", Self.channel], ["p", accountHex], ["p", sender.publicKeyHex], ["p", relayKey.publicKeyHex],
      ],
      content: "", age: 900)
    let members = [accountHex, sender.publicKeyHex] + (2..<Self.rosterMembers).map { _ in Self.randomHex() }
    let hostileRoster = try sign(
      relayKey, kind: 39002, tags: [["d", Self.channel]] + members.map { ["p", $0] }, content: "", age: 900)
    let nip11 = JSONWriter.bytes(
      .object(JSONObject(["name": .string("bench"), "self": .string(relayKey.publicKeyHex)])))
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    plain = try Self.start(
      RelayFixtureData(
        nip11: nip11, events: [message, plainMetadata, plainRoster],
        media: ["avatar.png": png + [UInt8](repeating: 1, count: 1024 - png.count)]))
    hostile = try Self.start(
      RelayFixtureData(
        nip11: nip11, events: [message] + padding + [hostileMetadata, hostileRoster],
        media: ["avatar.png": png + [UInt8](repeating: 1, count: 512 * 1024 - png.count)]))
    for server in [plain, hostile] {
      let profile = try sign(
        sender, kind: 0, tags: [],
        content: JSONWriter.string(
          .object(
            JSONObject([
              "name": .string("Alice"), "picture": .string((server.origin ?? "") + "/media/avatar.png"),
            ]))), age: 600)
      try server.add([profile])
    }
  }

  deinit {
    let (plain, hostile) = (self.plain, self.hostile)
    try? blockingRun {
      await plain.stop()
      await hostile.stop()
    }
  }

  private static func start(_ data: RelayFixtureData) throws -> RelayFixtureServer {
    let server = RelayFixtureServer(data: data, configuration: RelayFixtureConfiguration(now: now))
    _ = try blockingRun { try await server.start() }
    return server
  }

  private static func randomHex() -> String {
    (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
  }

  private static func secretHex(_ key: SecretKey) -> String {
    key.withUnsafeBytes { bytes in bytes.map { String(format: "%02x", $0) }.joined() }
  }

  /// One cold `resolve` against the plain or the hostile relay; refuses a run that did not
  /// present the message (it would measure a fallback).
  func run(hostile useHostile: Bool) throws -> ProcessFigures {
    runNumber += 1
    let cache = workspace.appendingPathComponent("cache-\(runNumber).sqlite").path
    let origin = (useHostile ? hostile : plain).origin ?? ""
    let figures = try ProcessProbe.run(
      nostrPush,
      ["resolve", "--relay", origin, "--secret-key-file", keyFile, "--cache", cache, "--now", "\(Self.now)"],
      keepOutput: true)
    guard figures.output.contains("\"outcome\":\"message\""), figures.output.contains("Lunch at noon?") else {
      throw ProcessProbe.Failure(
        description: "resolve did not present the message: \(figures.output.prefix(400))")
    }
    return figures
  }
}
