import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTesting
import NotificationResolver
import PushDescriptor
import SocialApp

/// TEST FIXTURES, not production: the loopback fixture relay (in push mode) from
/// `NostrPushTesting`, serving the repository's `Fixtures/demo/` data set (its published TEST keys)
/// with the social kinds added to its descriptor. A real app talks to a real relay instead.
public enum SocialAppDemo {
  /// The demo data set's base time, four days on (its own messages are past the window).
  public static let now: Int64 = 1_767_225_600 + 4 * 86_400
  /// The repository's `Fixtures/demo/` folder (this file is `Examples/SocialApp/Sources/SocialAppDemo/`).
  static let demoFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/demo")
  /// The social kinds the relay's descriptor adds to `push_kinds`.
  static let socialKinds = [
    EventKind.textNote, EventKind.repost, EventKind.reaction, EventKind.genericRepost, EventKind.comment,
    EventKind.zapReceipt,
  ]
  /// A PNG signature and filler: the custom emoji's image.
  static let emojiPNG: [UInt8] =
    [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 64)

  struct Failed: Error, CustomStringConvertible {
    let description: String
  }

  /// Runs every step and returns one line per step.
  public static func run() async throws -> [String] {
    let keys = try JSONReader().read(
      Array(try Data(contentsOf: demoFolder.appendingPathComponent("keys.json"))))
    func key(_ name: String) throws -> SecretKey {
      guard let hex = keys.objectValue?[name]?.objectValue?["secret_key"]?.stringValue else {
        throw Failed(description: "keys.json has no \(name)")
      }
      return try SecretKey(hex: hex)
    }
    let (account, alice, relayKey, zapper) = (
      try key("account"), try key("alice"), try key("relay"), SecretKey.generate()
    )
    let demo = try RelayFixtureData.load(folder: demoFolder)
    let relay = RelayFixtureServer(
      data: RelayFixtureData(
        nip11: try socialDocument(demo.nip11), events: demo.events, media: ["party.png": emojiPNG]),
      configuration: RelayFixtureConfiguration(now: now, push: RelayFixturePushMode(pushKey: relayKey)))
    let url = try await relay.start().absoluteString
    let container = FileManager.default.temporaryDirectory.appendingPathComponent(
      "social-app-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: container) }
    do {
      let lines = try await steps(
        relay: relay, url: url, account: account, alice: alice, zapper: zapper, container: container)
      await relay.stop()
      return lines
    } catch {
      await relay.stop()
      throw error
    }
  }

  private static func steps(
    relay: RelayFixtureServer, url: String, account: SecretKey, alice: SecretKey, zapper: SecretKey,
    container: URL
  ) async throws -> [String] {
    var lines: [String] = []
    let app = SocialAppSide(account: account)
    let descriptor = try await app.discover(relay: url)
    lines.append("app: push_kinds \(descriptor.pushKinds.map(String.init).joined(separator: ","))")
    let plan = try app.plan(descriptor, mutedSenders: [], mutedThreads: [])
    lines.append(
      "app: planned \(plan.subscriptions.count) subscriptions: "
        + plan.subscriptions.map { "\($0.pushClass) \($0.filter.kinds)" }.joined(separator: "; "))

    func sign(_ kind: Int, _ content: String, _ tags: [[String]], by key: SecretKey? = nil, age: Int64) throws
      -> Event
    {
      try UnsignedEvent(
        pubkey: (key ?? alice).publicKeyHex, createdAt: now - age, kind: kind, tags: tags, content: content
      ).signed(with: key ?? alice)
    }
    let toAccount = ["p", account.publicKeyHex]
    let own = try sign(EventKind.textNote, "Push that never leaks a word.", [], by: account, age: 600)
    let request = try ZapFixture.request(
      by: alice, to: account.publicKeyHex, target: own.id, amount: 21_000_000, comment: "Thanks for this",
      createdAt: now - 9)
    let wakes: [Event] = [
      try sign(EventKind.textNote, "Have you read this post?", [toAccount], age: 40),
      try sign(
        EventKind.reaction, ":party:",
        [["e", own.id], toAccount, ["emoji", "party", url + "/media/party.png"]],
        age: 30),
      try ZapFixture.receipt(
        for: request, by: zapper, to: account.publicKeyHex, invoiceAmount: "210u", createdAt: now - 20),
      try sign(
        EventKind.repost, String(decoding: own.jsonBytes(), as: UTF8.self), [["e", own.id], toAccount],
        age: 10),
    ]
    try relay.add([own])
    for event in wakes {
      // The relay matched `event` and the gateway woke the phone: the extension resolves that wake.
      try relay.add([event])
      let plan = try await SocialExtension.resolveOneWake(
        relay: url, secretKey: account, subscriptions: plan.subscriptions,
        zapperPubkeys: [zapper.publicKeyHex],
        mutedWords: ["spam"], cachePath: container.appendingPathComponent("cache.sqlite").path,
        avatarDirectory: container.appendingPathComponent("avatars").path, clock: .fixed(now))
      guard plan.message?.target.eventID == event.id else {
        throw Failed(description: "kind \(event.kind) did not show: \(plan.outcome)")
      }
      lines.append("extension: " + SocialExtension.describe(plan))
    }
    return lines
  }

  /// The demo's NIP-11 document with the social kinds added to `push.push_kinds`.
  static func socialDocument(_ nip11: [UInt8]?) throws -> [UInt8] {
    guard let nip11, case .object(var document) = try JSONReader().read(nip11),
      case .object(var push)? = document["push"], case .array(let kinds)? = push["push_kinds"]
    else { throw Failed(description: "Fixtures/demo/nip11.json has no push.push_kinds") }
    let known = Set(kinds.compactMap(\.integerValue))
    push["push_kinds"] = .array(
      kinds + socialKinds.filter { !known.contains(Int64($0)) }.map { .integer(Int64($0)) })
    document["push"] = .object(push)
    return JSONWriter.bytes(.object(document))
  }
}
