import EnrichmentCache
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NotificationResolver
import Testing

/// A message answer over its 1 MiB cap keeps the whole events read before the cap
/// (`Docs/NotificationServiceExtension.md`): oversized events a stranger posts cannot blank out an
/// account's notifications.
@Suite(.timeLimit(.minutes(2))) struct ResolverOversizedAnswerTests {
  /// Five 250 KiB kind 9 events by a non-member, tagged with the channel and the account, ahead
  /// of nothing but the member's mention: the answer passes the 1 MiB cap, and the mention read
  /// before the cap is shown — over `POST /query` and over a WebSocket alike.
  @Test(arguments: QueryTransport.allCases)
  func showsTheMembersMentionDespiteFiveOversizedStrangerEvents(_ transport: QueryTransport) async throws {
    let scenario = RelayScenario()
    let folder = TemporaryFolder()
    let stranger = SecretKey.generate()
    let flood = (0..<5).map { index in
      scenario.message(
        String(repeating: "x", count: 250 * 1024), createdAt: RelayScenario.now - 120 + Int64(index),
        from: stranger)
    }
    let mention = scenario.message("hi @you", createdAt: RelayScenario.now - 30)
    let server = try await scenario.startRelay([mention] + flood + scenario.enrichmentEvents())
    try await server.serving {
      let configuration = try ResolverConfiguration(
        relay: RelayOrigin(server.origin!), secretKey: scenario.account,
        relayPubkey: scenario.relayKey.publicKeyHex, budget: RelayScenario.generousTimeout,
        queryTimeout: RelayScenario.generousTimeout, queryTransport: transport)
      let resolution = await scenario.resolve(configuration, cache: try folder.cache())
      #expect(resolution.outcome.notification?.target.eventID == mention.id)
      #expect(resolution.outcome.notification?.body == "hi @you")
    }
  }

  /// The review's probes, from a relay that answers every request with one fixed array whose
  /// first element is the real message: over the cap by one 2 MiB event, by two 600 KiB events,
  /// and by 1 100 small junk events — with and without `Content-Length`.
  @Test(arguments: Probe.allCases, [true, false])
  func keepsTheRealMessageReadBeforeTheCap(_ probe: Probe, declaresLength: Bool) async throws {
    let scenario = RelayScenario()
    let real = scenario.message("the real message", createdAt: RelayScenario.now - 10)
    let rest = probe.events(scenario)
    let body = JSONWriter.bytes(.array(([real] + rest).map(\.jsonValue)))
    #expect(body.count > 1024 * 1024)
    let relay = try LoopbackHTTPResponder(
      .init(headers: ["Content-Type: application/json"], body: body, declaresLength: declaresLength))
    defer { relay.stop() }
    let configuration = try ResolverConfiguration(
      relay: RelayOrigin(relay.baseURL), secretKey: scenario.account,
      relayPubkey: scenario.relayKey.publicKeyHex, budget: .seconds(20), queryTimeout: .seconds(20))
    let resolution = await scenario.resolve(configuration, cache: nil)
    #expect(resolution.outcome.notification?.target.eventID == real.id, "\(resolution.outcome)")
  }

  /// What follows the real message in a probe's answer.
  enum Probe: String, CaseIterable, CustomTestStringConvertible {
    case one2MiBEvent
    case two600KiBEvents
    case junk1100

    var testDescription: String { rawValue }

    func events(_ scenario: RelayScenario) -> [Event] {
      let stranger = SecretKey.generate()
      switch self {
      case .one2MiBEvent:
        return [scenario.message(String(repeating: "y", count: 2 * 1024 * 1024), from: stranger)]
      case .two600KiBEvents:
        return (0..<2).map { _ in
          scenario.message(String(repeating: "z", count: 600 * 1024), from: stranger)
        }
      case .junk1100:
        let junk = String(repeating: "j", count: 1000)
        return (0..<1100).map { index in
          scenario.sign(stranger, kind: 1, content: junk + "\(index)", createdAt: RelayScenario.now - 200)
        }
      }
    }
  }
}
