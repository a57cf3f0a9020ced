import EnrichmentCache
import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import NotificationResolver

/// A relay, an account, a sender and a channel with real keys and real signatures, served by the
/// loopback fixture relay; the building block of the resolver's behaviour tests.
struct RelayScenario {
  /// The fixed clock every party reads (messages, freshness, NIP-98).
  static let now: Int64 = 1_800_000_000
  static let channel = "3f2a9c1e-7b4d-4e8a-9c2b-1d5e6f7a8b9c"
  /// The budget and query timeout of behaviour tests that are not about deadlines: the whole
  /// test suite shares two cores, so a test must not depend on how fast its tasks are scheduled.
  /// (A wake still ends as soon as every request has answered.) Deadline tests run the CLI in
  /// its own process instead (`ResolveCommandTests`).
  static let generousTimeout: Duration = .seconds(60)

  let relayKey = SecretKey.generate()
  let account = SecretKey.generate()
  let sender = SecretKey.generate()
  let other = SecretKey.generate()

  /// A signed event.
  func sign(
    _ key: SecretKey, kind: Int, content: String, tags: [[String]] = [],
    createdAt: Int64 = RelayScenario.now - 60
  ) -> Event {
    try! UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: createdAt, kind: kind, tags: tags, content: content
    )
    .signed(with: key)
  }

  /// A chat message to the account in the channel.
  func message(
    _ content: String, kind: Int = 9, extraTags: [[String]] = [], createdAt: Int64 = RelayScenario.now - 60,
    from key: SecretKey? = nil
  ) -> Event {
    sign(
      key ?? sender, kind: kind, content: content,
      tags: [["h", Self.channel], ["p", account.publicKeyHex]] + extraTags, createdAt: createdAt)
  }

  /// A kind 0 profile.
  func profile(
    of key: SecretKey? = nil, name: String, picture: String? = nil, createdAt: Int64 = RelayScenario.now - 600
  ) -> Event {
    var members: [JSONMember] = [JSONMember(key: "name", value: .string(name))]
    if let picture { members.append(JSONMember(key: "picture", value: .string(picture))) }
    return sign(
      key ?? sender, kind: 0, content: JSONWriter.string(.object(JSONObject(members))), createdAt: createdAt)
  }

  /// Channel metadata (kind 39000) signed by the relay key unless told otherwise.
  func channelMetadata(name: String, type: String = "stream", signer: SecretKey? = nil) -> Event {
    sign(
      signer ?? relayKey, kind: 39000, content: "",
      tags: [["d", Self.channel], ["name", name], ["t", type]], createdAt: Self.now - 900)
  }

  /// A roster (kind 39002) signed by the relay key.
  func membership(_ members: [String], signer: SecretKey? = nil) -> Event {
    sign(
      signer ?? relayKey, kind: 39002, content: "", tags: [["d", Self.channel]] + members.map { ["p", $0] },
      createdAt: Self.now - 900)
  }

  /// The NIP-11 document naming the relay key in `self`.
  var informationDocument: [UInt8] {
    JSONWriter.bytes(
      .object(JSONObject(["name": .string("Fixture"), "self": .string(relayKey.publicKeyHex)])))
  }

  /// The full channel: profile, metadata and a roster of the account, the sender and one other.
  func enrichmentEvents(name: String = "Alice", picture: String? = nil) -> [Event] {
    [
      profile(name: name, picture: picture), channelMetadata(name: "general"),
      membership([account.publicKeyHex, sender.publicKeyHex, other.publicKeyHex]),
    ]
  }

  /// Starts a fixture relay serving `events` with its clock fixed at ``now``.
  func startRelay(
    _ events: [Event], media: [String: [UInt8]] = [:], faults: [RelayFault] = [],
    mediaRequiresAuthorization: Bool = true
  ) async throws -> RelayFixtureServer {
    let data = RelayFixtureData(nip11: informationDocument, events: events, media: media, faults: faults)
    let server = RelayFixtureServer(
      data: data,
      configuration: RelayFixtureConfiguration(
        now: Self.now, mediaRequiresAuthorization: mediaRequiresAuthorization))
    _ = try await server.start()
    return server
  }

  /// A resolver configuration for the account on `server`.
  func configuration(
    _ server: RelayFixtureServer, relayPubkey: Bool = false, community: String? = nil,
    budget: Duration = RelayScenario.generousTimeout, queryTimeout: Duration = RelayScenario.generousTimeout,
    avatarDirectory: String? = nil, filters: [Filter]? = nil
  ) throws -> ResolverConfiguration {
    try ResolverConfiguration(
      relay: RelayOrigin(server.origin!), secretKey: account, filters: filters,
      relayPubkey: relayPubkey ? relayKey.publicKeyHex : nil, community: community, budget: budget,
      queryTimeout: queryTimeout, avatarDirectory: avatarDirectory)
  }

  /// Resolves one wake at `now`.
  func resolve(
    _ configuration: ResolverConfiguration, cache: EnrichmentCache?, now: Int64 = RelayScenario.now
  ) async -> Resolution {
    await NotificationResolver(configuration: configuration, cache: cache, clock: .fixed(now)).resolve()
  }
}

/// A temporary folder removed when the value is released.
final class TemporaryFolder: Sendable {
  let path: String

  init() {
    path = NSTemporaryDirectory() + "resolver-tests-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// A cache file in the folder, opened as the resolver opens it.
  func cache(named name: String = "cache.sqlite", now: Int64 = RelayScenario.now) throws -> EnrichmentCache {
    try EnrichmentCache(path: path + "/" + name, busyTimeout: .milliseconds(250), clock: { now })
  }
}

extension NotificationOutcome {
  /// The notification, when resolved.
  var notification: ResolvedNotification? {
    if case .resolved(let notification) = self { return notification }
    return nil
  }

  /// The fallback reason, when not resolved.
  var reason: FallbackReason? {
    if case .fallback(let reason) = self { return reason }
    return nil
  }
}

/// Minimal valid image headers and an SVG, for avatar tests.
enum ImageBytes {
  static let png: [UInt8] =
    [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 64)
  static let svg = Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".utf8)
}
