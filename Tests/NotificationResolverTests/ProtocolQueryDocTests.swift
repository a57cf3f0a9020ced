import EnrichmentCache
import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NotificationResolver
import PushLease
import Testing

/// The worked example of `Docs/Protocol/Query.md`: the filters the resolver sends for an
/// enrolled account's mention subscription, as the fixture relay received them.
@Suite(.timeLimit(.minutes(1))) struct ProtocolQueryDocTests {
  static func example(_ name: String) throws -> String {
    let text = try String(
      contentsOf: PackageRoot.url.appendingPathComponent("Docs/Protocol/Query.md"), encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    let marker = try #require(lines.firstIndex(of: "<!-- checked: \(name) -->"), "no example \(name)")
    try #require(lines[marker + 1] == "```json")
    return lines[marker + 2]
  }

  @Test func theMessageQueryIsTheDocuments() async throws {
    let now: Int64 = 1_767_484_800
    let account = try SecretKey(hex: "42f46fe1e335ef8bb1fd031e45566a98ecec3f333e92bff5ed3aaea92856ca2b")
    let server = RelayFixtureServer(data: RelayFixtureData(events: []), configuration: .init(now: now))
    let origin = try await server.start()
    try await server.serving {
      let me = try #require(NostrID(account.publicKeyHex))
      let mention = try LeaseSubscription(
        filter: LeaseFilter(
          kinds: [9, 40002, 45001, 45003], pTags: [me.hex], descriptor: nil), class: "default")
      let enrolled = try EnrolledAccount(
        origin: RelayOrigin(origin.absoluteString), pushKeyID: "demo-2026-01", pushKey: me, account: me,
        installationID: .generate(), generation: 1, subscriptions: [mention])
      let configuration = try ResolverConfiguration(
        account: enrolled, secretKey: account, relayPubkey: account.publicKeyHex)
      _ = await NotificationResolver(configuration: configuration, cache: nil, clock: .fixed(now)).resolve()
      let query = try #require(server.requests().first { $0.path == "/query" && $0.kinds.contains(9) })
      #expect(query.authorizedPubkey == account.publicKeyHex)
      #expect(
        JSONWriter.string(.array(query.filters.map(\.jsonValue))) == (try Self.example("the message query")))
    }
  }
}
