import NostrEvent
import NostrPushTesting
import NotificationResolver
import Testing

@Suite(.timeLimit(.minutes(2))) struct ResolverRoutingTests {
  static let root = String(repeating: "1a", count: 32)
  static let parent = String(repeating: "2b", count: 32)

  /// Tags after the `h` and `p` tags, and the thread the message must open.
  static let cases: [(String, [[String]], String?)] = [
    ("channel message", [], nil),
    ("thread reply", [["e", root, "", "root"], ["e", parent, "", "reply"]], parent),
    ("direct reply to the root", [["e", root, "", "root"]], root),
    (
      "nested reply",
      [
        ["e", root, "", "root"], ["e", String(repeating: "3c", count: 32), "", "reply"],
        ["e", parent, "", "reply"],
      ],
      parent
    ),
    ("broadcast reply", [["e", root, "", "root"], ["e", parent, "", "reply"], ["broadcast", "1"]], nil),
    ("malformed last marker", [["e", parent, "", "reply"], ["e", "not-hex", "", "reply"]], parent),
    ("uppercase reply", [["e", parent.uppercased(), "", "reply"]], parent),
  ]

  @Test(arguments: cases)
  func routesTheMessage(name: String, tags: [[String]], thread: String?) async throws {
    let scenario = RelayScenario()
    let message = scenario.message(name, extraTags: tags)
    let server = try await scenario.startRelay([message])
    try await server.serving {
      let resolution = await scenario.resolve(
        try scenario.configuration(server, relayPubkey: true), cache: nil)
      let target = try #require(resolution.outcome.notification?.target)
      #expect(
        target == MessageTarget(eventID: message.id, channelID: RelayScenario.channel, threadID: thread))
    }
  }

  @Test(arguments: [
    "3F2A9C1E-7B4D-4E8A-9C2B-1D5E6F7A8B9C", "3f2a9c1e-7b4d-1e8a-9c2b-1d5e6f7a8b9c", "general", "",
  ])
  func leavesAMalformedChannelIDOut(channel: String) async throws {
    // One `h` tag (a message with two is no channel message and is never presented, §1).
    let scenario = RelayScenario()
    let message = scenario.sign(
      scenario.sender, kind: 40002, content: "hi",
      tags: [["h", channel], ["p", scenario.account.publicKeyHex]])
    let server = try await scenario.startRelay([message])
    try await server.serving {
      let configuration = try scenario.configuration(server, relayPubkey: true, community: "Acme")
      let resolution = await scenario.resolve(configuration, cache: nil)
      let notification = try #require(resolution.outcome.notification)
      #expect(notification.target.channelID == nil)
      #expect(notification.subtitle == "Acme")
      #expect(notification.kind == 40002)
    }
  }
}
