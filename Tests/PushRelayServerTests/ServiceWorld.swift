import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushDescriptor
import PushLease
import PushRelay
import PushRelayServer

/// Test keys (never used anywhere real).
enum Keys {
  static let serviceHex = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c5b6a7988"
  static let pushHex = "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098"
  static let service = try! SecretKey(hex: serviceHex)
  static let push = try! SecretKey(hex: pushHex)
  static let account = try! SecretKey(hex: "42f46fe1e335ef8bb1fd031e45566a98ecec3f333e92bff5ed3aaea92856ca2b")
  static let alice = try! SecretKey(hex: "ffa7a0616ec26dabc85b5a17b7cb452764b2dc66b40334559fe04ad7d29da7c2")
  static let carol = try! SecretKey(hex: "0fd61fd025e34f1fb1750860d07272e298ce827114da698d8398ffa2ecb0e260")
}

/// A temporary folder of the test's own, removed by `remove()`.
struct TemporaryFolder {
  let path: String

  init() throws {
    path =
      FileManager.default.temporaryDirectory.appendingPathComponent("push-service-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(
      atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  }

  /// Writes `text` to `name` with `mode`; the file's path.
  @discardableResult
  func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
    let file = path + "/" + name
    try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
    return file
  }

  func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }
}

/// The descriptor policy the tests' services serve: kind 1 mentions, kind 9 channel messages and
/// gift wraps.
let testPolicy = """
  {"app_profiles":[{"id":"org.nostrpushkit.demo","transport":"apns"}],
   "push_kinds":[1,9,40002,45001,45003,1059],"urgent_kinds":[],"h_grammar":"uuid-v4-lowercase",
   "class_support":{"apns":["silent","default","time_sensitive"]},
   "limitation":{"max_lease_ttl":2592000,"max_leases_per_pubkey":8,"max_subscriptions_per_lease":4,
     "max_kinds":8,"max_authors":64,"max_h":32,"max_tag_values":64,"max_ignore":256,
     "max_content_len":65536,"max_plaintext_len":4096,"max_endpoint_len":512,"max_string_len":256}}
  """

/// A configuration file's text for a service in `folder` following `upstreams`, delivering to
/// `gateway`.
func configurationText(
  folder: TemporaryFolder, upstreams: [String], gateway: String?,
  feeds: String = #"{"websocket":true,"http":true}"#, auth: Bool = false
) throws -> String {
  try folder.write("service.key", Keys.serviceHex)
  try folder.write("push.key", Keys.pushHex)
  let upstreamList = upstreams.map { #"{"url":"\#($0)","auth":\#(auth)}"# }.joined(separator: ",")
  let gatewayMember = gateway.map { #""gateway":"\#($0)","# } ?? ""
  return """
    {"public_url":"wss://push.example.org","listen":"127.0.0.1:0","admin_listen":"127.0.0.1:0",
     "service_key_file":"service.key","push_key_files":["push.key"],"descriptor":\(testPolicy),
     "store":{"sqlite":"state.sqlite"},\(gatewayMember)"upstreams":[\(upstreamList)],"feeds":\(feeds)}
    """
}

/// A running service with an upstream fixture relay and a gateway fixture, on real loopback
/// sockets and real SQLite files.
final class ServiceWorld: @unchecked Sendable {
  let folder: TemporaryFolder
  let upstream: RelayFixtureServer
  let upstreamURL: String
  let gateway: GatewayFixture
  var configuration: PushServiceConfiguration
  let clock: UnixClock
  var service: PushService
  let descriptor: PushDescriptor

  /// A world whose service follows `external` (a relay someone else wrote) or, when nil, the
  /// fixture relay, with the client listener's `limits`, reading `clock`.
  init(
    upstream external: String? = nil, upstreamInformation: String? = nil, auth: Bool = false,
    limits: PushServiceLimits = PushServiceLimits(), clock: UnixClock = .system
  ) async throws {
    folder = try TemporaryFolder()
    gateway = try GatewayFixture(configuration: GatewayFixtureConfiguration(quota: 0))
    let gatewayBase = Self.base(try await gateway.start())
    var data = RelayFixtureData()
    data.nip11 = upstreamInformation.map { Array($0.utf8) }
    upstream = RelayFixtureServer(data: data)
    try await upstream.start()
    upstreamURL = external ?? (upstream.relayOrigin?.webSocketURL ?? "")
    let text = try configurationText(
      folder: folder, upstreams: [upstreamURL], gateway: gatewayBase, auth: auth)
    configuration = try PushServiceConfiguration(file: try folder.write("config.json", text, mode: 0o644))
    configuration.limits = limits
    self.clock = clock
    service = try await PushService.start(configuration, clock: clock)
    descriptor = try RelayDocument(bytes: service.document).push
  }

  /// A server's base URL without a trailing `/`.
  static func base(_ url: URL) -> String {
    let text = url.absoluteString
    return text.hasSuffix("/") ? String(text.dropLast()) : text
  }

  var webSocketURL: String { "ws://127.0.0.1:\(service.port)" }
  var adminURL: String { "http://127.0.0.1:\(service.adminPort)" }

  /// Stops the service and starts it again on the same files (with `limits` when given).
  func restart(limits: PushServiceLimits? = nil) async throws {
    await service.stop()
    if let limits { configuration.limits = limits }
    service = try await PushService.start(configuration, clock: clock)
  }

  func stop() async {
    await service.stop()
    await upstream.stop()
    await gateway.stop()
    folder.remove()
  }

  /// A signed lease of the account for kind 1 mentions of it, to a fresh gateway grant.
  func mentionLease(token: String = "aabbcc", generation: Int64 = 1) throws -> Event {
    try lease(for: Keys.account, kinds: [1], token: token, generation: generation)
  }

  /// A signed lease of `key` for events of `kinds` that name it in `p`, to a fresh gateway grant.
  func lease(for key: SecretKey, kinds: [Int], token: String = "aabbcc", generation: Int64 = 1) throws
    -> Event
  {
    let now = Int64(Date().timeIntervalSince1970)
    let grant = try gateway.issueGrant(relayPubkey: Keys.push.publicKeyHex, deviceToken: token)
    let filter = try LeaseFilter(kinds: kinds, pTags: [key.publicKeyHex], descriptor: descriptor)
    let subscription = try LeaseSubscription(filter: filter, class: "default")
    return try LeaseBuilder(
      descriptor: descriptor, appProfile: PushAppProfile(id: "org.nostrpushkit.demo", transport: "apns")
    ).active(
      endpoint: grant.grant, subscriptions: [subscription], generation: generation, createdAt: now,
      installationID: InstallationID.generate(), now: now, signer: key)
  }

  /// Enrolls `lease` over the service's WebSocket with NIP-42 as `key`; the relay's OK.
  func enroll(_ lease: Event, as key: SecretKey = Keys.account) async throws -> PublishResult {
    let connection = try await RelayConnection.connect(
      to: webSocketURL, key: key, deadline: .now + .seconds(5))
    defer { Task { await connection.close() } }
    return try await connection.publish(lease, deadline: .now + .seconds(5))
  }

  /// Publishes `event` to the upstream relay (answering NIP-42 as its author's key `key` when given); its OK.
  func publishUpstream(_ event: Event, key: SecretKey? = Keys.alice) async throws -> PublishResult {
    let connection = try await RelayConnection.connect(
      to: upstreamURL, key: key, deadline: .now + .seconds(5))
    defer { Task { await connection.close() } }
    return try await connection.publish(event, deadline: .now + .seconds(5))
  }

  /// A kind 1 note by `key` mentioning the account, now.
  static func mention(by key: SecretKey = Keys.alice, content: String = "hello", at createdAt: Int64? = nil)
    -> Event
  {
    try! UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: createdAt ?? Int64(Date().timeIntervalSince1970), kind: 1,
      tags: [["p", Keys.account.publicKeyHex]], content: content
    ).signed(with: key)
  }

  /// `POST /query` to the service signed by `key`.
  func query(_ filters: String, key: SecretKey) async throws -> (status: Int, body: [UInt8]) {
    let url = "http://127.0.0.1:\(service.port)/query"
    let body = Array(filters.utf8)
    let header = try NIP98.authorizationHeader(
      url: url, method: "POST", body: body, key: key, now: Int64(Date().timeIntervalSince1970))
    return try await LoopbackFetch.send(url, method: "POST", headers: ["Authorization": header], body: body)
  }
}
