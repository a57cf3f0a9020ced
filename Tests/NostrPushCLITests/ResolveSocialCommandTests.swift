import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import Testing

/// `nostr-push resolve`'s social flags, run through the binary against the fixture relay with
/// events signed by real keys: `--zapper-pubkeys` decides whether a zap shows its amount, and
/// `--only-from`, `--muted-words`, `--muted-hashtags` and `--muted-threads` keep events out.
@Suite(.timeLimit(.minutes(2))) struct ResolveSocialCommandTests {
  static let now: Int64 = 1_800_000_000
  static let root = String(repeating: "4d", count: 32)

  final class World: Sendable {
    let folder = NSTemporaryDirectory() + "resolve-social-" + UUID().uuidString
    /// The account's key as the key file holds it (64 hex).
    let accountHex = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 1...254)) }.joined()
    var account: SecretKey { try! SecretKey(hex: accountHex) }
    let sender = SecretKey.generate()
    let zapper = SecretKey.generate()

    init() { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// Writes `text` to a file of the folder and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
      let path = folder + "/" + name
      try Data(text.utf8).write(to: URL(fileURLWithPath: path))
      return path
    }

    /// A JSON array of strings.
    func list(_ name: String, _ values: [String]) throws -> String {
      try file(name, JSONWriter.string(.array(values.map(JSONValue.string))))
    }

    func note(_ content: String, kind: Int = EventKind.textNote, tags: [[String]]) throws -> Event {
      try UnsignedEvent(
        pubkey: sender.publicKeyHex, createdAt: ResolveSocialCommandTests.now - 60, kind: kind,
        tags: tags + [["p", account.publicKeyHex]], content: content
      ).signed(with: sender)
    }

    func zap() throws -> Event {
      let request = try ZapFixture.request(
        by: sender, to: account.publicKeyHex, target: ResolveSocialCommandTests.root, amount: 21_000_000,
        comment: "thanks", createdAt: ResolveSocialCommandTests.now - 70)
      return try ZapFixture.receipt(
        for: request, by: zapper, to: account.publicKeyHex, invoiceAmount: "210u",
        createdAt: ResolveSocialCommandTests.now - 60)
    }

    /// Serves `events`, resolves one wake with the social subscription and `extra` flags, and
    /// returns the line.
    func resolve(_ events: [Event], _ extra: [String] = []) async throws -> (Int32, JSONObject?) {
      let relay = RelayFixtureServer(
        data: RelayFixtureData(nip11: Array("{}".utf8), events: events),
        configuration: RelayFixtureConfiguration(now: ResolveSocialCommandTests.now))
      _ = try await relay.start()
      let key = try file("account.key", accountHex)
      let kinds = [EventKind.textNote, EventKind.reaction, EventKind.zapReceipt]
      let subscriptions = try file(
        "subscriptions.json",
        "[{\"filter\":{\"kinds\":\(kinds),\"#p\":[\"\(account.publicKeyHex)\"]},\"class\":\"default\"}]")
      return try await relay.serving {
        let run = try await NostrPushBinary.run(
          [
            "resolve", "--relay", relay.origin!, "--secret-key-file", key, "--cache",
            folder + "/cache-\(UUID().uuidString).sqlite", "--now", "\(ResolveSocialCommandTests.now)",
            "--relay-pubkey", sender.publicKeyHex, "--subscriptions", subscriptions,
          ] + extra)
        let line = run.stdout.split(separator: "\n").first.map(String.init) ?? ""
        return (run.status, try? JSONReader().read(line).objectValue)
      }
    }
  }

  @Test func aZapShowsItsAmountOnlyWithTheZapperKey() async throws {
    let world = World()
    let zap = try world.zap()
    let (status, validated) = try await world.resolve(
      [zap], ["--zapper-pubkeys", try world.list("zappers.json", [world.zapper.publicKeyHex])])
    #expect(status == 0)
    #expect(validated?["title"]?.stringValue?.hasSuffix(" zapped you 21 000 sats") == true)
    #expect(validated?["user_info"]?.objectValue?["social_kind"] == .string("zap"))
    let (_, unvalidated) = try await world.resolve([zap])
    #expect(unvalidated?["title"]?.stringValue?.hasSuffix(" zapped you") == true)
    #expect(unvalidated?["relevance_score"] == .float(0.5))
  }

  @Test func eachSocialFilterKeepsItsEventOut() async throws {
    let world = World()
    let word = try world.note("buy CHEAP pills", tags: [])
    let hashtag = try world.note("vote!", tags: [["t", "Politics"]])
    let thread = try world.note("in the thread", tags: [["e", Self.root, "", "root"]])
    let cases: [(Event, [String])] = [
      (word, ["--muted-words", try world.list("words.json", ["cheap"])]),
      (hashtag, ["--muted-hashtags", try world.list("tags.json", ["#politics"])]),
      (thread, ["--muted-threads", try world.list("threads.json", [Self.root])]),
      (word, ["--only-from", try world.list("only.json", [world.zapper.publicKeyHex])]),
    ]
    for (event, flags) in cases {
      let (_, shown) = try await world.resolve([event])
      #expect(shown?["outcome"] == .string("message"), "\(flags[0]) without the flag")
      let (status, kept) = try await world.resolve([event], flags + ["--can-filter"])
      #expect(status == 0)
      #expect(kept?["outcome"] == .string("nothing_new"), "\(flags[0])")
      #expect(kept?["suppress"] == .bool(true))
    }
  }

  @Test func aFlagFileThatIsNotAnArrayOfIDsExitsOne() async throws {
    let world = World()
    let (status, line) = try await world.resolve(
      [try world.note("hi", tags: [])], ["--muted-threads", try world.list("bad.json", ["note1abc"])])
    #expect(status == 1)
    #expect(line == nil)
  }
}
