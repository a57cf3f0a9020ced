import Bech32
import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import Testing

/// Runs the built `nostr-push resolve` against the fixture relay serving `Fixtures/demo`.
@Suite(.timeLimit(.minutes(2))) struct ResolveCommandTests {
  static let now: Int64 = 1_767_226_200
  static let demo = NostrPushBinary.packageRoot.appendingPathComponent("Fixtures/demo")
  static let resolvedKeys = [
    "outcome", "resolved", "suppress", "account", "title", "subtitle", "body", "more_count",
    "thread_identifier", "target_content_identifier", "target", "wrap_id", "user_info", "sender", "kind",
    "recipient_count", "avatar_file", "avatar_skipped", "interruption_level", "sound", "relevance_score",
    "communication", "enrichment", "elapsed_ms",
  ]
  /// The `created_at` of the demo's newest message (the broadcast reply).
  static let newestMessageCreatedAt: Int64 = 1_767_226_100

  struct Manifest {
    var events: JSONObject
    var sender: String
    var channel: String

    init() throws {
      let bytes = try Data(contentsOf: ResolveCommandTests.demo.appendingPathComponent("manifest.json"))
      let object = try #require(try JSONReader().read([UInt8](bytes)).objectValue)
      events = try #require(object["events"]?.objectValue)
      sender = try #require(object["sender_pubkey"]?.stringValue)
      channel = try #require(object["channel_id"]?.stringValue)
    }

    func id(_ role: String) -> String? { events[role]?.stringValue }
  }

  final class Workspace: Sendable {
    let path = NSTemporaryDirectory() + "resolve-cli-" + UUID().uuidString
    init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    var cache: String { path + "/cache.sqlite" }

    /// `--filters` for a first wake that sees only the demo's newest message (a `since` later than
    /// the window's), so the next wake on the default filters finds the other three.
    func newestOnly() throws -> [String] {
      let file = path + "/newest-only.json"
      let account = try String(contentsOf: demo.appendingPathComponent("account.key"), encoding: .utf8)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      let pubkey = try SecretKey(hex: account).publicKeyHex
      let filters = "[{\"kinds\":[9],\"#p\":[\"\(pubkey)\"],\"since\":\(newestMessageCreatedAt)}]"
      try Data(filters.utf8).write(to: URL(fileURLWithPath: file))
      return ["--filters", file]
    }
  }

  static func startRelay(now: Int64 = now, faults: [RelayFault] = []) async throws -> RelayFixtureServer {
    var data = try RelayFixtureData.load(folder: demo)
    data.faults = faults
    let server = RelayFixtureServer(data: data, configuration: RelayFixtureConfiguration(now: now))
    _ = try await server.start()
    return server
  }

  static func resolve(
    _ server: RelayFixtureServer, cache: String, now: Int64 = now, extra: [String] = []
  ) async throws -> (NostrPushBinary.Run, JSONObject) {
    try await resolve(origin: server.origin ?? "", cache: cache, now: now, extra: extra)
  }

  static func resolve(
    origin: String, cache: String, now: Int64 = now, extra: [String] = []
  ) async throws -> (NostrPushBinary.Run, JSONObject) {
    let run = try await NostrPushBinary.run(
      [
        "resolve", "--relay", origin.replacingOccurrences(of: "http://", with: "ws://"),
        "--secret-key-file", demo.appendingPathComponent("account.key").path, "--cache", cache, "--now",
        "\(now)",
      ] + extra)
    let lines = run.stdout.split(separator: "\n")
    #expect(lines.count == 1)
    let object = try #require(try JSONReader().read(String(lines.first ?? "")).objectValue)
    return (run, object)
  }

  @Test func resolvesTheColdThenTheWarmWakeFieldByField() async throws {
    let manifest = try Manifest()
    let server = try await Self.startRelay()
    try await server.serving {
      let workspace = Workspace()
      let (run, cold) = try await Self.resolve(
        server, cache: workspace.cache, extra: try workspace.newestOnly())
      #expect(run.status == 0)
      #expect(cold.keys == Self.resolvedKeys)
      #expect(cold["outcome"] == .string("message"))
      #expect(cold["suppress"] == .bool(false))
      #expect(cold["more_count"] == .integer(0))
      #expect(cold["resolved"] == .bool(true))
      #expect(cold["title"] == .string("Alice Martin"))
      #expect(cold["subtitle"] == .string("#relay-dev"))
      #expect(cold["body"]?.stringValue?.contains("**demo**") == true)
      #expect(cold["kind"] == .integer(9))
      #expect(cold["recipient_count"] == .integer(2))
      #expect(cold["enrichment"] == .string("refreshed"))
      let target = try #require(cold["target"]?.objectValue)
      #expect(target.keys == ["event_id", "channel_id", "thread_id", "conversation"])
      #expect(target["conversation"] == .null)
      #expect(cold["wrap_id"] == .null)
      #expect(target["event_id"] == manifest.id("broadcast_reply").map(JSONValue.string))
      #expect(target["channel_id"] == .string(manifest.channel))
      #expect(target["thread_id"] == .null)
      let sender = try #require(cold["sender"]?.objectValue)
      #expect(sender["pubkey"] == .string(manifest.sender))
      #expect(sender["npub"] == CompactNpub.canonicalNpub(manifest.sender).map(JSONValue.string))
      let identifier = try #require(cold["thread_identifier"]?.stringValue)
      #expect(identifier.count == 64 && !identifier.contains(manifest.channel))
      #expect((cold["elapsed_ms"]?.integerValue ?? -1) >= 0)
      // The plan's fields: a mention of the account on the default class.
      let origin = try #require(server.origin)
      let eventID = try #require(manifest.id("broadcast_reply"))
      #expect(cold["target_content_identifier"] == .string(origin + "#" + eventID))
      let userInfo = try #require(cold["user_info"]?.objectValue)
      #expect(userInfo.keys == ["account", "relay_origin", "event_id", "channel_id"])
      #expect(userInfo["relay_origin"] == .string(origin))
      #expect(userInfo["event_id"] == .string(eventID))
      #expect(userInfo["channel_id"] == .string(manifest.channel))
      #expect(cold["interruption_level"] == .string("active"))
      #expect(cold["sound"] == .string("default"))
      #expect(cold["relevance_score"] == .integer(1))
      // The demo's avatar URL names a port nobody serves (Fixtures/demo/README.md).
      #expect(cold["avatar_file"] == .null)
      #expect(cold["avatar_skipped"] == .string("fetch_failed"))
      let communication = try #require(cold["communication"]?.objectValue)
      #expect(communication["sender_name"] == .string("Alice Martin"))
      #expect(communication["handle"] == sender["npub"])
      #expect(communication["conversation_identifier"] == .string(identifier))
      #expect(communication["group_name"] == .string("relay-dev"))
      #expect(communication["recipient_count"] == .integer(2))
      #expect(communication["avatar_file"] == .null)

      let (_, warm) = try await Self.resolve(server, cache: workspace.cache)
      #expect(warm["enrichment"] == .string("cache_fresh"))
      #expect(warm["more_count"] == .integer(2))
      #expect(warm["body"]?.stringValue?.hasSuffix("\nand 2 more") == true)
      #expect(warm["thread_identifier"] == .string(identifier))
      let warmTarget = try #require(warm["target"]?.objectValue)
      #expect(warmTarget["event_id"] == manifest.id("thread_reply").map(JSONValue.string))
      #expect(warmTarget["thread_id"] == manifest.id("carol_reply").map(JSONValue.string))
    }
  }

  /// A relay reached by a name with `_` (`relay_1.localhost`, which resolves to loopback) is one
  /// origin to the resolver and the cache alike, so the second wake presents the next message
  /// instead of the one the first wake already claimed.
  @Test func keepsDeliverOnceForARelayWhoseHostHasAnUnderscore() async throws {
    let manifest = try Manifest()
    var data = try RelayFixtureData.load(folder: Self.demo)
    data.faults = []
    let server = RelayFixtureServer(
      data: data, configuration: RelayFixtureConfiguration(publicHost: "relay_1.localhost", now: Self.now))
    let origin = try await server.start()
    try await server.serving {
      #expect(origin.host == "relay_1.localhost")
      let workspace = Workspace()
      let (_, first) = try await Self.resolve(
        origin: origin.absoluteString, cache: workspace.cache, extra: try workspace.newestOnly())
      let (_, second) = try await Self.resolve(origin: origin.absoluteString, cache: workspace.cache)
      #expect(first["resolved"] == .bool(true))
      #expect(
        first["target"]?.objectValue?["event_id"] == manifest.id("broadcast_reply").map(JSONValue.string))
      #expect(second["target"]?.objectValue?["event_id"] == manifest.id("thread_reply").map(JSONValue.string))
      let stats = try await NostrPushBinary.run(["cache", "stats", "--cache", workspace.cache])
      let counts = try #require(try JSONReader().read(stats.stdout).objectValue)
      #expect(counts["deliveries"] == .integer(4))
    }
  }

  /// `--transport websocket` asks the same questions over one WebSocket: on the demo data it
  /// prints the same line as `POST /query` (but for the time it took), cold and warm.
  @Test func printsTheSameLineOverWebSocketAsOverQuery() async throws {
    let server = try await Self.startRelay()
    try await server.serving {
      let overQuery = Workspace()
      let overWebSocket = Workspace()
      for wake in 0..<2 {
        let filters = wake == 0 ? try overQuery.newestOnly() : []
        var (_, query) = try await Self.resolve(server, cache: overQuery.cache, extra: filters)
        var (run, websocket) = try await Self.resolve(
          server, cache: overWebSocket.cache, extra: ["--transport", "websocket"] + filters)
        #expect(run.status == 0)
        #expect(websocket["resolved"] == .bool(true))
        // The time differs, and the avatar file lies beside each run's own cache.
        // Each plan's communication avatar is a copy of its own too.
        var queryCommunication = query["communication"]?.objectValue
        var websocketCommunication = websocket["communication"]?.objectValue
        queryCommunication?["avatar_file"] = nil
        websocketCommunication?["avatar_file"] = nil
        #expect(queryCommunication != nil)
        #expect(websocketCommunication == queryCommunication)
        for key in ["elapsed_ms", "avatar_file", "communication"] {
          query[key] = nil
          websocket[key] = nil
        }
        #expect(websocket == query)
      }
    }
  }

  /// `resolve`'s default subscriptions include the direct-message one (`Docs/CommandLine.md`): a wrap that
  /// `dm send` published to the demo account, backdated a day, is the wake's newest message over
  /// `POST /query` and over a WebSocket alike, shown from the rumor and named without asking the
  /// relay about its sender.
  @Test func presentsADirectMessageSentWithDmSendOverBothTransports() async throws {
    let server = try await Self.startRelay()
    try await server.serving {
      let keys = try Data(contentsOf: Self.demo.appendingPathComponent("keys.json"))
      let alice = try #require(
        try JSONReader().read([UInt8](keys)).objectValue?["alice"]?.objectValue?["secret_key"]?.stringValue)
      let folder = Workspace()
      let keyFile = folder.path + "/alice.key"
      try Data(alice.utf8).write(to: URL(fileURLWithPath: keyFile))
      let text = "Just between us: the demo works."
      let send = try await NostrPushBinary.run([
        "dm", "send", "--relay", (server.origin ?? "").replacingOccurrences(of: "http://", with: "ws://"),
        "--secret-key-file", keyFile, "--to", try Self.accountPubkey(), "--text", text, "--backdate-seconds",
        "86400", "--now", "\(Self.now)",
      ])
      #expect(send.status == 0, "\(send.stdout) \(send.stderr)")
      let sent = try #require(try JSONReader().read(send.stdout).objectValue)
      let rumorID = try #require(sent["rumor_id"]?.stringValue)
      let wrapID = try #require(sent["wraps"]?.arrayValue?.first?.objectValue?["id"]?.stringValue)
      let sender = try Manifest().sender
      let asked = server.requests().count
      var lines: [JSONObject] = []
      for transport in ["query", "websocket"] {
        let workspace = Workspace()
        var (run, line) = try await Self.resolve(
          server, cache: workspace.cache, extra: ["--transport", transport])
        #expect(run.status == 0)
        #expect(line["kind"] == .integer(14))
        #expect(line["wrap_id"] == .string(wrapID))
        #expect(line["target"]?.objectValue?["event_id"] == .string(rumorID))
        #expect(line["body"]?.stringValue?.hasPrefix(text + "\nand ") == true)
        #expect(line["title"]?.stringValue?.hasPrefix("npub1") == true)
        #expect(line["avatar_skipped"] == .string("not_cached"))
        #expect(line["relevance_score"] == .integer(1))
        line["elapsed_ms"] = nil
        lines.append(line)
      }
      #expect(lines.count == 2 && lines[0] == lines[1])
      // Nothing the two wakes asked names the sender: no profile query, no avatar.
      let wakeRequests = server.requests().dropFirst(asked)
      #expect(
        !wakeRequests.contains { request in
          request.filters.contains { ($0.authors ?? []).contains(sender) }
            || request.path.hasPrefix("/media")
        })
      #expect(wakeRequests.contains { $0.filters.contains { $0.kinds == [1059] } })
    }
  }

  /// iOS kills an extension after its claim (`--kill-after-claim`: SIGKILL to itself right after
  /// the claim is written): while the claim is live another wake has nothing new; once it expired
  /// unpresented, the next wake presents every message it covered; the wake after that has
  /// nothing new.
  @Test func aWakeKilledAfterItsClaimLeavesItsMessagesToTheNextWake() async throws {
    let manifest = try Manifest()
    let server = try await Self.startRelay()
    try await server.serving {
      let workspace = Workspace()
      let binary = try #require(NostrPushBinary.url)
      let killed = try await ChildProcess.run(
        binary,
        [
          "resolve", "--relay", try #require(server.origin), "--secret-key-file",
          Self.demo.appendingPathComponent("account.key").path, "--cache", workspace.cache, "--now",
          "\(Self.now)",
          "--kill-after-claim",
        ])
      #expect(killed.killedBySignal)
      #expect(killed.status == SIGKILL)
      #expect(killed.stdoutText.isEmpty)
      let stats = try await NostrPushBinary.run(["cache", "stats", "--cache", workspace.cache])
      #expect(try JSONReader().read(stats.stdout).objectValue?["deliveries"] == .integer(4))

      let (_, during) = try await Self.resolve(server, cache: workspace.cache)
      #expect(during["outcome"] == .string("nothing_new"))
      #expect(during["reason"] == .string("already_delivered"))

      let later = Self.now + 40
      server.setNow(later)
      let (_, next) = try await Self.resolve(server, cache: workspace.cache, now: later)
      #expect(next["outcome"] == .string("message"))
      #expect(
        next["target"]?.objectValue?["event_id"] == manifest.id("broadcast_reply").map(JSONValue.string))
      #expect(next["more_count"] == .integer(3))
      let (_, third) = try await Self.resolve(
        server, cache: workspace.cache, now: later, extra: ["--can-filter"])
      #expect(third["outcome"] == .string("nothing_new"))
      #expect(third["reason"] == .string("already_delivered"))
      #expect(third["suppress"] == .bool(true))
    }
  }

  /// `--muted-pubkeys` drops the muted sender's messages (here the demo's Alice: Carol's reply
  /// is left); `--subscriptions` with the channel in an ignore filter drops every message.
  @Test func appliesMutedSendersAndTheSubscriptionsIgnoreFilters() async throws {
    let manifest = try Manifest()
    let server = try await Self.startRelay()
    try await server.serving {
      let workspace = Workspace()
      let account = try Self.accountPubkey()
      let muted = workspace.path + "/muted.json"
      try Data("{\"\(account)\":[\"\(manifest.sender)\"]}".utf8).write(to: URL(fileURLWithPath: muted))
      let (_, line) = try await Self.resolve(
        server, cache: workspace.cache, extra: ["--muted-pubkeys", muted])
      #expect(line["target"]?.objectValue?["event_id"] == manifest.id("carol_reply").map(JSONValue.string))
      #expect(line["more_count"] == .integer(0))

      let quiet = Workspace()
      let subscriptions = quiet.path + "/subscriptions.json"
      let kinds = "[9,40002,45001,45003]"
      try Data(
        ("[{\"filter\":{\"kinds\":\(kinds),\"#p\":[\"\(account)\"]},\"class\":\"default\","
          + "\"ignore\":[{\"kinds\":[9],\"#h\":[\"\(manifest.channel)\"]}],\"suppress\":{\"p_tags_max\":20}}]")
          .utf8
      ).write(to: URL(fileURLWithPath: subscriptions))
      let (run, none) = try await Self.resolve(
        server, cache: quiet.cache, extra: ["--subscriptions", subscriptions])
      #expect(run.status == 0)
      #expect(none["outcome"] == .string("nothing_new"))
      #expect(none["reason"] == .string("no_eligible_event"))
    }
  }

  /// `--secret-key-file` twice: the wake queries both accounts and names the one the message
  /// belongs to (the demo's messages are the demo account's, listed second here).
  @Test func resolvesForSeveralAccountsAndNamesTheMessagesAccount() async throws {
    let server = try await Self.startRelay()
    try await server.serving {
      let workspace = Workspace()
      let otherKey = workspace.path + "/other.key"
      // A test key of an account with no messages on the demo relay.
      try Data(String(repeating: "07", count: 32).utf8).write(to: URL(fileURLWithPath: otherKey))
      let run = try await NostrPushBinary.run([
        "resolve", "--relay", try #require(server.origin), "--secret-key-file", otherKey, "--secret-key-file",
        Self.demo.appendingPathComponent("account.key").path, "--cache", workspace.cache, "--now",
        "\(Self.now)",
      ])
      let line = try #require(try JSONReader().read(run.stdout).objectValue)
      #expect(line["outcome"] == .string("message"))
      #expect(line["account"] == .string(try Self.accountPubkey()))
      #expect(line["more_count"] == .integer(3))
      #expect(server.requests().filter { $0.path == "/query" }.count >= 2)
    }
  }

  /// The demo account's pubkey.
  static func accountPubkey() throws -> String {
    let hex = try String(contentsOf: demo.appendingPathComponent("account.key"), encoding: .utf8)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    return try SecretKey(hex: hex).publicKeyHex
  }

  @Test(arguments: ["0", "337", "x"]) func refusesAWindowOutsideOneHourToFourteenDays(_ hours: String)
    async throws
  {
    let run = try await NostrPushBinary.run(
      [
        "resolve", "--relay", "ws://127.0.0.1:1", "--secret-key-file", "k", "--cache", "c", "--window-hours",
        hours,
      ])
    #expect(run.status == 2)
  }

  @Test func refusesAnUnknownTransport() async throws {
    let run = try await NostrPushBinary.run(
      [
        "resolve", "--relay", "ws://127.0.0.1:1", "--secret-key-file", "k", "--cache", "c", "--transport",
        "tcp",
      ])
    #expect(run.status == 2)
  }

  @Test func lingersSoALateProfileReachesTheCache() async throws {
    let server = try await Self.startRelay(faults: [
      RelayFault(path: "/query", kind: 0, action: .delay(milliseconds: 1500))
    ])
    try await server.serving {
      let workspace = Workspace()
      let (run, first) = try await Self.resolve(
        server, cache: workspace.cache,
        extra: ["--budget-ms", "200", "--linger-ms", "5000"] + (try workspace.newestOnly()))
      #expect(run.status == 0)
      #expect(first["enrichment"] == .string("none"))
      #expect(first["title"]?.stringValue?.hasPrefix("npub1") == true)
      server.setFaults([])
      let (_, second) = try await Self.resolve(server, cache: workspace.cache)
      #expect(second["enrichment"] == .string("cache_fresh"))
      #expect(second["title"] == .string("Alice Martin"))
    }
  }

  @Test func appliesNowToEligibility() async throws {
    let early = Self.now - 2000
    let server = try await Self.startRelay(now: early)
    try await server.serving {
      let workspace = Workspace()
      let (run, line) = try await Self.resolve(server, cache: workspace.cache, now: early)
      #expect(run.status == 0)
      #expect(line["reason"] == .string("no_eligible_event"))
    }
  }

  @Test func printsAFallbackLineWhenTheRelayIsDown() async throws {
    let server = try await Self.startRelay()
    let origin = try #require(server.origin)
    await server.stop()
    let workspace = Workspace()
    let (run, line) = try await Self.resolve(
      origin: origin, cache: workspace.cache, extra: ["--query-timeout-ms", "2000"])
    #expect(run.status == 0)
    #expect(
      line.keys == [
        "outcome", "resolved", "suppress", "reason", "title", "body", "interruption_level", "elapsed_ms",
      ])
    #expect(line["outcome"] == .string("fallback"))
    #expect(line["resolved"] == .bool(false))
    #expect(line["reason"] == .string("relay_unreachable"))
    #expect(line["title"] == .string("New message"))
    #expect(line["body"] == .string("Open the app to read it."))
  }

  @Test func readsAnNsecKeyFileWithSurroundingWhitespace() async throws {
    let server = try await Self.startRelay()
    try await server.serving {
      let workspace = Workspace()
      let hex = try String(contentsOf: Self.demo.appendingPathComponent("account.key"), encoding: .utf8)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      let nsec = try NIP19Entity.nsec(secretKey: hex).encoded()
      let keyFile = workspace.path + "/nsec.txt"
      try Data("\n  \(nsec) \n".utf8).write(to: URL(fileURLWithPath: keyFile))
      let run = try await NostrPushBinary.run([
        "resolve", "--relay", server.origin!, "--secret-key-file", keyFile, "--cache", workspace.cache,
        "--now",
        "\(Self.now)",
      ])
      #expect(run.status == 0)
      #expect(run.stdout.hasPrefix(#"{"outcome":"message","resolved":true,"#))
      #expect(run.stdout.contains(#""title":"Alice Martin""#))
    }
  }

  @Test func refusesMissingArgumentsWithAUsageError() async throws {
    let run = try await NostrPushBinary.run(["resolve", "--cache", "/tmp/x.sqlite"])
    #expect(run.status == 2)
    #expect(run.stdout.isEmpty)
    #expect(run.stderr.contains("--relay"))
  }

  /// The main job: every step of `Docs/CommandLine.md`'s table, in order, each notification naming the
  /// event of its wake, the production gateway's constant content-free payload (its JWT verified),
  /// and no wake after revocation; in both
  /// generations (`buzz-push-v1` on `Fixtures/demo-v1`), one at a time (the demo's port). Both
  /// descriptors list gift wraps, so both scripts add the direct-message triple.
  @Test(.serialized, arguments: [nil, "buzz-push-v1"])
  func runsTheWholePipelineDemo(pushProtocol: String?) async throws {
    let run = try await NostrPushBinary.run(["demo"] + (pushProtocol.map { ["--protocol", $0] } ?? []))
    #expect(run.status == 0)
    let objects = try run.stdout.split(separator: "\n").map {
      try #require(try JSONReader().read(String($0)).objectValue)
    }
    let directSteps = ["published", "wake", "notification"]
    #expect(
      objects.map { $0["step"]?.stringValue ?? "" }
        == [
          "discovered", "granted", "enrolled", "published", "wake", "notification", "published", "wake",
          "notification",
        ] + directSteps + ["revoked", "published", "silent"])
    guard objects.count == 12 + directSteps.count else { return }
    #expect(objects[0]["protocol"] == .string(pushProtocol ?? "nip-pl"))
    let kinds: [Int64] = [9, 40002, 45001, 45003, 1059]
    #expect(objects[0]["push_kinds"] == .array(kinds.map(JSONValue.integer)))
    #expect(objects[2]["generation"] == .integer(1))
    #expect(objects[2]["subscriptions"] == .integer(3))
    for (published, wake, notification) in [(3, 4, 5), (6, 7, 8)] {
      let eventID = try #require(objects[published]["event_id"]?.stringValue)
      #expect(objects[wake]["event_id"] == .string(eventID))
      #expect(objects[wake]["apns_push_type"] == .string("alert"))
      #expect(objects[wake]["apns_priority"] == .integer(10))
      #expect(
        objects[wake]["payload"]
          == .string(
            #"{"aps":{"alert":{"title":"NostrPushKit demo","body":"Reconnect to your relay now"},"mutable-content":1}}"#
          ))
      // The production gateway's APNs request, its provider token verified.
      #expect(objects[wake]["path"]?.stringValue?.hasPrefix("/3/device/") == true)
      #expect(objects[wake]["headers"]?.objectValue?["apns-id"] == objects[wake]["request_id"])
      #expect(objects[wake]["jwt"]?.objectValue?["verified"] == .bool(true))
      #expect(objects[notification]["request_id"] == objects[wake]["request_id"])
      #expect(objects[notification]["target"]?.objectValue?["event_id"] == .string(eventID))
      #expect(objects[notification]["title"] == .string("Alice Martin"))
    }
    #expect(objects[5]["enrichment"] == .string("refreshed"))
    #expect(objects[8]["enrichment"] == .string("cache_fresh"))
    #expect(objects[8]["target"]?.objectValue?["thread_id"] == objects[3]["event_id"])
    // The direct message: the wrap published and woken for, the rumor presented.
    #expect(objects[9]["kind"] == .integer(1059))
    #expect(objects[9]["author"] == objects[3]["author"])
    #expect(objects[10]["event_id"] == objects[9]["event_id"])
    #expect(objects[11]["request_id"] == objects[10]["request_id"])
    #expect(objects[11]["wrap_id"] == objects[10]["event_id"])
    #expect(objects[11]["kind"] == .integer(14))
    #expect(objects[11]["title"] == .string("Alice Martin"))
    #expect(objects[11]["body"] == .string("Are you coming to lunch? Just between us."))
    #expect(objects[11]["target"]?.objectValue?["event_id"] != objects[10]["event_id"])
    let tail = objects.count - 3
    #expect(objects[tail]["generation"] == .integer(2))
    #expect(objects[tail + 2]["event_id"] == objects[tail + 1]["event_id"])
    #expect(run.stderr.contains("match → gateway"))
    // `Docs/Robustness.md`: the demo's folder is its owner's alone, and so are its databases.
    let marker = "state, cache and avatars in "
    let line = try #require(run.stderr.split(separator: "\n").first { $0.contains(marker) })
    let range = try #require(line.range(of: marker))
    let workspace = String(line[range.upperBound...])
    defer { try? FileManager.default.removeItem(atPath: workspace) }
    #expect(Self.mode(workspace) == 0o700)
    #expect(Self.mode(workspace + "/avatars") == 0o700)
    for file in ["relay-state.sqlite", "cache.sqlite", "enrollment.json", "gateway.sqlite"] {
      #expect(Self.mode(workspace + "/" + file) == 0o600, "\(file)")
    }
  }

  /// The permission bits of the file at `path`, nil when it does not exist.
  static func mode(_ path: String) -> Int? {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber).map {
      $0.intValue & 0o777
    }
  }

  @Test func refusesAnUnknownDemoProtocolWithAUsageError() async throws {
    let run = try await NostrPushBinary.run(["demo", "--protocol", "nip-pl-2"])
    #expect(run.status == 2)
    #expect(run.stdout.isEmpty)
    #expect(run.stderr.contains("--protocol must be nip-pl or buzz-push-v1, got 'nip-pl-2'"))
  }
}

/// Deadline behaviour, measured in the `nostr-push resolve` process itself so that other test
/// suites sharing this process's threads cannot distort it.
@Suite(.timeLimit(.minutes(2))) struct ResolveDeadlineTests {
  static let queryTimeoutMs: Int64 = 800
  static let budgetMs: Int64 = 500
  /// The promise: query timeout + budget + 1 s.
  static let limitMs = queryTimeoutMs + budgetMs + 1000
  static let fastArguments = ["--query-timeout-ms", "\(queryTimeoutMs)", "--budget-ms", "\(budgetMs)"]

  /// Each fault ends within the deadline with its reason; a body cut in half (nil) keeps the
  /// whole events before the cut, so the newest message is shown (`Docs/NotificationServiceExtension.md`).
  @Test(arguments: [
    (RelayFault.Action.status(503), "relay_error"),
    (RelayFault.Action.notJSON, "invalid_response"),
    (RelayFault.Action.truncatedBody, nil),
    (RelayFault.Action.oversizedBody(bytes: 2 << 20, declaresLength: false), "invalid_response"),
    (RelayFault.Action.delay(milliseconds: 4000), "timeout"),
  ])
  func fallsBackWithinTheDeadline(action: RelayFault.Action, reason: String?) async throws {
    let server = try await ResolveCommandTests.startRelay(faults: [RelayFault(path: "/query", action: action)]
    )
    try await server.serving {
      let workspace = ResolveCommandTests.Workspace()
      let (run, line) = try await ResolveCommandTests.resolve(
        server, cache: workspace.cache, extra: Self.fastArguments)
      #expect(run.status == 0)
      #expect(line["reason"] == reason.map { .string($0) })
      #expect(line["resolved"] == .bool(reason == nil))
      #expect((line["elapsed_ms"]?.integerValue ?? .max) <= Self.limitMs)
    }
  }

  @Test func fallsBackWithinTheDeadlineWhenTheConnectionIsRefused() async throws {
    let server = try await ResolveCommandTests.startRelay()
    let origin = try #require(server.origin)
    await server.stop()
    let workspace = ResolveCommandTests.Workspace()
    let (_, line) = try await ResolveCommandTests.resolve(
      origin: origin, cache: workspace.cache, extra: Self.fastArguments)
    #expect(line["reason"] == .string("relay_unreachable"))
    #expect((line["elapsed_ms"]?.integerValue ?? .max) <= Self.limitMs)
  }

  @Test func resolvesWithinTheDeadlineWhenTheNIP11FetchHangs() async throws {
    let server = try await ResolveCommandTests.startRelay(faults: [
      RelayFault(path: "/", action: .delay(milliseconds: 5000))
    ])
    try await server.serving {
      let workspace = ResolveCommandTests.Workspace()
      let (_, line) = try await ResolveCommandTests.resolve(
        server, cache: workspace.cache, extra: Self.fastArguments)
      #expect(line["resolved"] == .bool(true))
      #expect(line["title"] == .string("Alice Martin"))
      #expect(line["subtitle"] == .null)
      #expect((line["elapsed_ms"]?.integerValue ?? .max) <= Self.limitMs)
    }
  }

  @Test func deliversTheStaleNameWithinTheBudgetAndCachesTheLateAnswer() async throws {
    let seeded = ResolveCommandTests.now
    let later = seeded + 2 * 3600
    let server = try await ResolveCommandTests.startRelay(now: seeded)
    try await server.serving {
      let workspace = ResolveCommandTests.Workspace()
      let (_, first) = try await ResolveCommandTests.resolve(
        server, cache: workspace.cache, now: seeded, extra: try workspace.newestOnly())
      #expect(first["enrichment"] == .string("refreshed"))

      server.setNow(later)
      server.setFaults([RelayFault(path: "/query", kind: 0, action: .delay(milliseconds: 3000))])
      let (run, stale) = try await ResolveCommandTests.resolve(
        server, cache: workspace.cache, now: later, extra: ["--budget-ms", "1500", "--linger-ms", "6000"])
      #expect(stale["title"] == .string("Alice Martin"))
      #expect(stale["enrichment"] == .string("cache_stale"))
      let enrichment = try #require(Self.enrichmentMilliseconds(run.stderr))
      #expect(enrichment <= 1600)
      #expect(run.stderr.contains("late enrichment finished"))

      server.setFaults([])
      server.resetRequestLog()
      let manifest = try ResolveCommandTests.Manifest()
      try server.add([try Self.messageFromAlice(createdAt: later - 10, channel: manifest.channel)])
      let (_, third) = try await ResolveCommandTests.resolve(server, cache: workspace.cache, now: later)
      #expect(third["body"] == .string("fresh"))
      #expect(third["enrichment"] == .string("cache_fresh"))
      #expect(server.requestCount(path: "/query", kind: 0) == 0)
    }
  }

  /// A new message from the demo's sender to the account, signed with the demo's test key.
  static func messageFromAlice(createdAt: Int64, channel: String) throws -> Event {
    let bytes = try Data(contentsOf: ResolveCommandTests.demo.appendingPathComponent("keys.json"))
    let keys = try #require(try JSONReader().read([UInt8](bytes)).objectValue)
    let alice = try SecretKey(hex: try #require(keys["alice"]?.objectValue?["secret_key"]?.stringValue))
    let account = try #require(keys["account"]?.objectValue?["pubkey"]?.stringValue)
    return try UnsignedEvent(
      pubkey: alice.publicKeyHex, createdAt: createdAt, kind: 9, tags: [["h", channel], ["p", account]],
      content: "fresh"
    ).signed(with: alice)
  }

  /// The `enrichment N ms` figure of the diagnostic line on standard error.
  static func enrichmentMilliseconds(_ stderr: String) -> Int64? {
    guard let range = stderr.range(of: "enrichment ") else { return nil }
    return Int64(stderr[range.upperBound...].prefix { $0.isNumber })
  }
}
