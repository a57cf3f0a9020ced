import Foundation
import GiftWrap
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushLease
import PushRelay
import Testing

/// `nostr-push dm send` (`Docs/CommandLine.md`) against an in-process fixture relay:
/// the recipient reads the wrap back and opens it; nobody else reads it; the sender never
/// authenticates.
@Suite(.timeLimit(.minutes(2))) struct DirectMessageCommandTests {
  static let now: Int64 = 1_767_226_600

  let sender = SecretKey.generate()
  let recipient = SecretKey.generate()
  let other = SecretKey.generate()

  final class KeyFiles: Sendable {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dm-cli-\(UUID().uuidString)")
    init() { try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: folder) }

    /// A key file holding `key` as 64 hex (a test key).
    func file(_ key: SecretKey) throws -> String {
      let url = folder.appendingPathComponent(key.publicKeyHex + ".key")
      try key.withUnsafeBytes { try Data(Hex.encode($0).utf8).write(to: url) }
      return url.path
    }
  }

  static func withFixtureRelay<T>(_ body: (RelayFixtureServer, String) async throws -> T) async throws -> T {
    try await withRelay(configuration: RelayFixtureConfiguration(now: now, requestLogCapacity: 200)) {
      relay in
      try await body(relay, try #require(relay.relayOrigin).webSocketURL)
    }
  }

  static func output(_ run: NostrPushBinary.Run) throws -> JSONObject {
    #expect(run.stdout.filter { $0 == "\n" }.count == 1, "\(run.stdout) \(run.stderr)")
    return try #require(try JSONReader().read(run.stdout).objectValue)
  }

  /// The gift wraps addressed to `addressee` that a connection authenticated as `reader` gets.
  static func wraps(at relay: String, for addressee: String, readAs reader: SecretKey?) async throws
    -> [Event]
  {
    let filter = try Filter(jsonValue: try JSONReader().read(##"{"kinds":[1059],"#p":["\##(addressee)"]}"##))
    let deadline = ContinuousClock.now + .seconds(8)
    let connection = try await RelayConnection.connect(
      to: relay, key: reader, clock: { now }, deadline: deadline)
    do {
      let events = try await connection.query([filter], deadline: deadline)
      await connection.close()
      return events
    } catch {
      await connection.close()
      throw error
    }
  }

  @Test func sendsAWrapTheRecipientReadsBackAndOpens() async throws {
    let keys = KeyFiles()
    try await Self.withFixtureRelay { relay, webSocket in
      let run = try await NostrPushBinary.run([
        "dm", "send", "--relay", webSocket, "--secret-key-file", try keys.file(sender), "--to",
        recipient.publicKeyHex, "--text", "Lunch at noon?", "--subject", "plans", "--backdate-seconds",
        "169200",
        "--now", String(Self.now),
      ])
      #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
      let output = try Self.output(run)
      let wrapLines = try #require(output["wraps"]?.arrayValue)
      #expect(wrapLines.count == 1)
      let line = try #require(wrapLines.first?.objectValue)
      #expect(line["to"] == .string(recipient.publicKeyHex))
      #expect(line["accepted"] == .bool(true))
      #expect(line["message"] == .string(""))

      let read = try await Self.wraps(at: webSocket, for: recipient.publicKeyHex, readAs: recipient)
      #expect(read.count == 1)
      let wrap = try #require(read.first)
      #expect(line["id"] == .string(wrap.id))
      #expect(wrap.createdAt == Self.now - 169_200)
      #expect(wrap.pubkey != sender.publicKeyHex)
      let message = try DirectMessage(unwrapping: wrap, recipient: recipient)
      #expect(message.content == "Lunch at noon?")
      #expect(message.subject == "plans")
      #expect(message.author == sender.publicKeyHex)
      #expect(message.createdAt == Self.now)
      #expect(output["rumor_id"] == .string(message.id))

      let published = relay.requests().filter { $0.path == "ws" && $0.method == "EVENT" }
      #expect(published.count == 1)
      #expect(relay.requests().allSatisfy { $0.authorizedPubkey != sender.publicKeyHex })
      #expect(published.allSatisfy { $0.authorizedPubkey == nil || $0.authorizedPubkey == wrap.pubkey })
    }
  }

  @Test func wrapsOnceForEachRecipientWithOneRumorID() async throws {
    let keys = KeyFiles()
    try await Self.withFixtureRelay { _, webSocket in
      let run = try await NostrPushBinary.run([
        "dm", "send", "--relay", webSocket, "--secret-key-file", try keys.file(sender), "--to",
        recipient.publicKeyHex, "--to", other.publicKeyHex, "--text", "group hello", "--now",
        String(Self.now),
      ])
      #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
      let output = try Self.output(run)
      let lines = try #require(output["wraps"]?.arrayValue).compactMap(\.objectValue)
      #expect(lines.map { $0["to"] } == [.string(recipient.publicKeyHex), .string(other.publicKeyHex)])
      let mine = try #require(
        try await Self.wraps(at: webSocket, for: recipient.publicKeyHex, readAs: recipient).first)
      let theirs = try #require(
        try await Self.wraps(at: webSocket, for: other.publicKeyHex, readAs: other).first)
      #expect(mine.pubkey != theirs.pubkey)
      for wrap in [mine, theirs] {
        #expect((Self.now - 172_800...Self.now).contains(wrap.createdAt))
      }
      let a = try DirectMessage(unwrapping: mine, recipient: recipient)
      let b = try DirectMessage(unwrapping: theirs, recipient: other)
      #expect(a.id == b.id)
      #expect(output["rumor_id"] == .string(a.id))
      #expect(a.recipients == [recipient.publicKeyHex, other.publicKeyHex])
    }
  }

  @Test func servesTheWrapToNobodyButTheRecipient() async throws {
    let keys = KeyFiles()
    try await Self.withFixtureRelay { _, webSocket in
      let run = try await NostrPushBinary.run([
        "dm", "send", "--relay", webSocket, "--secret-key-file", try keys.file(sender), "--to",
        recipient.publicKeyHex, "--text", "only for you", "--now", String(Self.now),
      ])
      #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
      let readByOther = try await Self.wraps(at: webSocket, for: recipient.publicKeyHex, readAs: other)
      #expect(readByOther.isEmpty)
      let readBySender = try await Self.wraps(at: webSocket, for: recipient.publicKeyHex, readAs: sender)
      #expect(readBySender.isEmpty)
      let anonymous = await #expect(throws: RelayConnectionError.self) {
        try await Self.wraps(at: webSocket, for: recipient.publicKeyHex, readAs: nil)
      }
      #expect(anonymous?.code == .authRequired)
      let readByRecipient = try await Self.wraps(
        at: webSocket, for: recipient.publicKeyHex, readAs: recipient)
      #expect(readByRecipient.count == 1)
    }
  }

  /// The demo folder in push mode (its `push_kinds` list 1059): `enroll --direct-messages` for the
  /// demo account, then a backdated wrap to it, wakes the account's lease.
  @Test func wakesALeaseEnrolledForDirectMessages() async throws {
    let demo = NostrPushBinary.packageRoot.appendingPathComponent("Fixtures/demo")
    let data = try RelayFixtureData.load(folder: demo)
    let nip11 = String(decoding: try #require(data.nip11), as: UTF8.self)
    #expect(nip11.contains(#""push_kinds": [9,40002,45001,45003,1059]"#))
    let relayKey = try SecretKey(hex: "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098")
    let account = try SecretKey(hex: "42f46fe1e335ef8bb1fd031e45566a98ecec3f333e92bff5ed3aaea92856ca2b")
    let keys = KeyFiles()
    try await withRelay(
      data,
      configuration: RelayFixtureConfiguration(now: Self.now, push: RelayFixturePushMode(pushKey: relayKey))
    ) { relay in
      let origin = try #require(relay.origin)
      let enroll = try await NostrPushBinary.run([
        "enroll", "--relay", origin, "--secret-key-file", demo.appendingPathComponent("account.key").path,
        "--state", keys.folder.appendingPathComponent("state.json").path, "--app-profile",
        "org.nostrpushkit.demo", "--transport", "apns", "--endpoint", "grant-for-tests", "--direct-messages",
        "--now", String(Self.now),
      ])
      #expect(enroll.status == 0, "\(enroll.stdout) \(enroll.stderr)")
      let send = try await NostrPushBinary.run([
        "dm", "send", "--relay", try #require(relay.relayOrigin).webSocketURL, "--secret-key-file",
        try keys.file(sender), "--to", account.publicKeyHex, "--text", "are you awake?", "--backdate-seconds",
        "169200", "--now", String(Self.now),
      ])
      #expect(send.status == 0, "\(send.stdout) \(send.stderr)")
      let wrapID = try #require(
        try Self.output(send)["wraps"]?.arrayValue?.first?.objectValue?["id"]?.stringValue)
      let wakes = try relay.wakes().filter { $0.candidate.eventID == wrapID }
      #expect(wakes.count == 1)
      #expect(wakes.first?.candidate.address.lease.pubkey == account.publicKeyHex)
      #expect((wakes.first?.candidate.expiresAt ?? 0) > Self.now)
    }
  }

  @Test(arguments: [
    (["--to", String(repeating: "g", count: 64)], "invalid_recipient"),
    (["--backdate-seconds", "172801"], "invalid_backdate"),
    (["--backdate-seconds", "-1"], "invalid_backdate"),
  ])
  func refusesAnInvalidValueWithItsCode(extra: [String], code: String) async throws {
    let keys = KeyFiles()
    var arguments = [
      "dm", "send", "--relay", "ws://127.0.0.1:9", "--secret-key-file", try keys.file(sender), "--text", "x",
    ]
    if !extra.contains("--to") { arguments += ["--to", recipient.publicKeyHex] }
    let run = try await NostrPushBinary.run(arguments + extra)
    #expect(run.status == 1)
    #expect(try Self.output(run)["error"] == .string(code))
  }

  @Test func reportsAWrapTheRelayDidNotTakeAndExitsOne() async throws {
    let keys = KeyFiles()
    let closed = try await withRelay { relay in try #require(relay.relayOrigin).webSocketURL }
    let run = try await NostrPushBinary.run([
      "dm", "send", "--relay", closed, "--secret-key-file", try keys.file(sender), "--to",
      recipient.publicKeyHex,
      "--text", "x",
    ])
    #expect(run.status == 1)
    let line = try #require(try Self.output(run)["wraps"]?.arrayValue?.first?.objectValue)
    #expect(line["accepted"] == .bool(false))
    #expect(line["message"]?.stringValue?.hasPrefix("error: ") == true)
  }

  @Test(arguments: [
    ["dm"], ["dm", "receive"], ["dm", "send", "--relay", "ws://x", "--secret-key-file", "k", "--text", "t"],
    [
      "dm", "send", "--relay", "ws://x", "--secret-key-file", "k", "--to", "a", "--text", "t", "--bogus", "1",
    ],
  ])
  func exitsTwoOnAUsageError(_ arguments: [String]) async throws {
    let run = try await NostrPushBinary.run(arguments)
    #expect(run.status == 2, "\(arguments)")
    #expect(run.stdout.isEmpty)
  }
}
