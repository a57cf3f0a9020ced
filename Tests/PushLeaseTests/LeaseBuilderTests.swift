import NIP44
import NostrEvent
import NostrJSON
import PushDescriptor
import Testing

@testable import PushLease

/// What the builder writes: the exact plaintext, the public event, the expiration, and the
/// codes it throws before signing, in the CLI's order.
@Suite struct LeaseBuilderTests {
  typealias T = LeaseTestSupport

  static func builder(
    _ descriptor: PushDescriptor = T.demoDescriptor(), profile: PushAppProfile? = T.appProfile
  ) -> LeaseBuilder {
    LeaseBuilder(descriptor: descriptor, appProfile: profile)
  }

  static func mention() -> [LeaseSubscription] {
    [LeaseSubscription(filter: LeaseFilter(kinds: [9], pTags: [T.me]), pushClass: "default")]
  }

  static func build(
    _ builder: LeaseBuilder = builder(), endpoint: String = "grant-1",
    subscriptions: [LeaseSubscription] = mention(),
    generation: Int64 = 1, grantExpiresAt: Int64? = nil
  ) throws(LeaseBuildError) -> Event {
    try builder.active(
      endpoint: endpoint, subscriptions: subscriptions, generation: generation, createdAt: T.now,
      installationID: T.installationID, grantExpiresAt: grantExpiresAt, now: T.now, signer: T.account)
  }

  /// The content decrypted by NIP44 itself (the vector-verified module) with the relay's key.
  static func decrypted(_ event: Event) throws -> String {
    let conversation = try NIP44.ConversationKey(secretKey: T.pushKey, publicKey: event.pubkey)
    return try NIP44.decrypt(event.content, conversationKey: conversation)
  }

  @Test func writesTheActivePlaintextExactly() throws {
    let plan = try SubscriptionPlanner(descriptor: T.demoDescriptor())
      .plan(for: T.me, joined: [T.channelB, T.channelA], muted: [T.channelB])
    let event = try Self.build(endpoint: "grant/\"1\"\n", subscriptions: plan, generation: 7)
    let me = T.me
    let kinds = "[9,40002,45001,45003]"
    let ignore = ##"[{"kinds":\##(kinds),"authors":["\##(me)"]},{"kinds":[9],"#h":["\##(T.channelB)"]}]"##
    let expected =
      ##"{"v":1,"origin":"ws://127.0.0.1:48111","app_profile":"org.nostrpushkit.demo","transport":"apns","##
      + ##""endpoint":"grant/\"1\"\n","generation":7,"active":true,"subscriptions":["##
      + ##"{"filter":{"kinds":\##(kinds),"#p":["\##(me)"]},"class":"default","ignore":\##(ignore),"##
      + ##""suppress":{"p_tags_max":20}},"##
      + ##"{"filter":{"kinds":[9],"#h":["\##(T.channelA)"]},"class":"default","ignore":\##(ignore),"##
      + ##""suppress":{"p_tags_max":20}}]}"##
    let plaintext = try Self.decrypted(event)
    #expect(Array(plaintext.utf8) == Array(expected.utf8))
    #expect(LeaseCipher.open(event.content, with: T.pushKey, from: event.pubkey) == plaintext)

    let object = try #require(try JSONReader().read(plaintext).objectValue)
    #expect(object.keys == LeasePlaintextCheck.activeMembers)
    #expect(object["v"] == .integer(1))
    #expect(object["generation"] == .integer(7))
    #expect(object["active"] == .bool(true))
    #expect(object["endpoint"] == .string("grant/\"1\"\n"))
    let first = try #require(object["subscriptions"]?.arrayValue?.first?.objectValue)
    #expect(first.keys == ["filter", "class", "ignore", "suppress"])
    #expect(first["filter"]?.objectValue?.keys == ["kinds", "#p"])
  }

  @Test func omitsAnEmptyIgnoreAndAnUnsetSuppress() throws {
    let event = try Self.build()
    let expected =
      ##"{"v":1,"origin":"ws://127.0.0.1:48111","app_profile":"org.nostrpushkit.demo","transport":"apns","##
      + ##""endpoint":"grant-1","generation":1,"active":true,"subscriptions":[{"filter":{"kinds":[9],"#p":["\##(T.me)"]},"##
      + ##""class":"default"}]}"##
    #expect(try Self.decrypted(event) == expected)
  }

  @Test func writesFilterMembersInTheSpecsOrder() throws {
    let filter = LeaseFilter(
      kinds: [9], authors: [RejectionCase.hex], pTags: [T.me], hTags: [T.channelA], eTags: [RejectionCase.hex]
    )
    #expect(filter.jsonValue.objectValue?.keys == ["kinds", "authors", "#p", "#h", "#e"])
  }

  @Test func writesTheTombstonePlaintextExactly() throws {
    let event = try Self.builder(profile: nil).tombstone(
      installationID: T.installationID, generation: 8, createdAt: T.now + 1, now: T.now, signer: T.account)
    #expect(
      try Self.decrypted(event) == #"{"v":1,"origin":"ws://127.0.0.1:48111","generation":8,"active":false}"#)
    #expect(event.createdAt == T.now + 1)
    #expect(event.tags[1] == ["expiration", String(T.now + 2_592_000 - 300)])
    #expect(try T.validator().open(event, tenantOrigin: T.origin, now: T.now).state == .tombstone)
  }

  @Test func signsAKind30350EventWithExactlyThreeTags() throws {
    let event = try Self.build(grantExpiresAt: T.now + 3600)
    #expect(event.kind == 30350)
    #expect(event.pubkey == T.me)
    #expect(event.createdAt == T.now)
    #expect(
      event.tags == [
        ["d", T.installationID.rawValue], ["expiration", String(T.now + 3600)], ["exec", T.keyID],
      ])
    #expect(event.verify() == .valid(.common))
  }

  @Test func encryptsToTheCurrentKeyNotTheRetiringOne() throws {
    let retiring = SecretKey.generate()
    let current = SecretKey.generate()
    let descriptor = T.demoDescriptor([
      "keys": .array([
        PushKey(id: "old", pubkey: retiring.publicKeyHex, retiring: true).jsonValue,
        PushKey(id: "new", pubkey: current.publicKeyHex, current: true).jsonValue,
      ])
    ])
    let event = try Self.build(Self.builder(descriptor))
    #expect(event.tags[2] == ["exec", "new"])
    #expect(LeaseCipher.open(event.content, with: current, from: T.me) != nil)
    #expect(LeaseCipher.open(event.content, with: retiring, from: T.me) == nil)
  }

  struct ExpirationCase: Sendable, CustomTestStringConvertible {
    var ttl: Int
    var grant: Int64?
    var expected: Int64
    var testDescription: String { "ttl \(ttl), grant \(grant.map { "now+\($0 - T.now)" } ?? "nil")" }
  }

  @Test(arguments: [
    ExpirationCase(ttl: 2_592_000, grant: nil, expected: T.now + 2_592_000 - 300),
    ExpirationCase(ttl: 2_592_000, grant: T.now + 3600, expected: T.now + 3600),
    ExpirationCase(ttl: 2_592_000, grant: T.now + 1, expected: T.now + 1),
    ExpirationCase(ttl: 2_592_000, grant: T.now + 2_592_000, expected: T.now + 2_592_000 - 300),
    ExpirationCase(ttl: 1200, grant: nil, expected: T.now + 1200 - 300),
    ExpirationCase(ttl: 400, grant: nil, expected: T.now + 400 - 100),
    ExpirationCase(ttl: 7, grant: nil, expected: T.now + 7 - 1),
    ExpirationCase(ttl: 1, grant: nil, expected: T.now + 1),
  ])
  func expiresAtTheGrantOrTheTTLLessTheClockMargin(_ row: ExpirationCase) throws {
    let descriptor = T.demoDescriptor(T.limit("max_lease_ttl", row.ttl))
    let event = try Self.build(Self.builder(descriptor), grantExpiresAt: row.grant)
    #expect(event.tags[1] == ["expiration", String(row.expected)])
    #expect(T.verdict(event, validator: T.validator(descriptor)) == nil)
  }

  @Test(arguments: [T.now, T.now - 1, 0])
  func refusesAGrantThatHasExpired(_ grant: Int64) throws {
    let error = #expect(throws: LeaseBuildError.self) { try Self.build(grantExpiresAt: grant) }
    #expect(error?.code == .grantExpired)
  }

  @Test func buildsALeaseTheValidatorOpens() throws {
    let plan = try SubscriptionPlanner(descriptor: T.demoDescriptor()).plan(for: T.me, joined: [T.channelA])
    let event = try Self.build(
      endpoint: "grant-9", subscriptions: plan, generation: 42, grantExpiresAt: T.now + 600)
    let opened = try T.validator().open(event, tenantOrigin: T.origin, now: T.now)
    #expect(opened.address == OpenedLease.Address(pubkey: T.me, d: T.installationID.rawValue))
    #expect(opened.address.description == "30350:\(T.me):\(T.installationID.rawValue)")
    #expect(opened.eventID == event.id)
    #expect(opened.createdAt == T.now)
    #expect(opened.expiration == T.now + 600)
    #expect(opened.keyID == T.keyID)
    #expect(opened.origin == T.origin)
    #expect(opened.generation == 42)
    #expect(
      opened.state
        == .active(
          appProfile: T.appProfile.id, transport: "apns", endpoint: "grant-9",
          endpointHash: Hex.encode(NostrSHA256.hash(Array("grant-9".utf8))), subscriptions: plan))
  }

  struct CodeCase: Sendable, CustomTestStringConvertible {
    var code: LeaseBuildError.Code
    var note: String
    var profile: PushAppProfile? = T.appProfile
    var endpoint = "grant-1"
    var generation: Int64 = 1
    var subscriptions = LeaseBuilderTests.mention()
    var grant: Int64?
    var changes: [String: JSONValue] = [:]
    var testDescription: String { "\(code.rawValue): \(note)" }
  }

  static let bigEndpoint = String(repeating: "e", count: 512)

  @Test(arguments: [
    CodeCase(code: .invalidAppProfile, note: "no profile", profile: nil),
    CodeCase(
      code: .invalidAppProfile, note: "not advertised, before the endpoint",
      profile: PushAppProfile(id: "org.example.other", transport: "apns"), endpoint: ""),
    CodeCase(
      code: .invalidAppProfile, note: "another transport",
      profile: PushAppProfile(id: "org.nostrpushkit.demo", transport: "fcm")),
    CodeCase(code: .invalidEndpoint, note: "empty, before the generation", endpoint: "", generation: 0),
    CodeCase(code: .invalidEndpoint, note: "513 bytes", endpoint: bigEndpoint + "e"),
    CodeCase(code: .invalidGeneration, note: "0, before the subscriptions", generation: 0, subscriptions: []),
    CodeCase(code: .invalidGeneration, note: "2^53", generation: 1 << 53),
    CodeCase(code: .invalidGeneration, note: "negative", generation: -1),
    CodeCase(code: .invalidSubscriptions, note: "none, before the grant", subscriptions: [], grant: T.now),
    CodeCase(
      code: .grantExpired, note: "before the plaintext length", grant: T.now,
      changes: T.limit("max_plaintext_len", 10)),
    CodeCase(
      code: .plaintextTooLong, note: "before the content length",
      changes: T.limit("max_plaintext_len", 10).merging(T.limit("max_content_len", 10)) { $1 }),
    CodeCase(
      code: .contentTooLong, note: "content over max_content_len", changes: T.limit("max_content_len", 100)),
  ])
  func throwsTheFirstFailingCodeBeforeSigning(_ row: CodeCase) throws {
    let builder = Self.builder(T.demoDescriptor(row.changes), profile: row.profile)
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.build(
        builder, endpoint: row.endpoint, subscriptions: row.subscriptions, generation: row.generation,
        grantExpiresAt: row.grant)
    }
    #expect(error?.code == row.code)
  }

  @Test func reportsThePlanCheckAsTheValidatorsFullText() throws {
    let descriptor = T.demoDescriptor(T.limit("max_kinds", 3))
    let plan = try SubscriptionPlanner(descriptor: descriptor).plan(for: T.me, joined: [])
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.build(Self.builder(descriptor), subscriptions: plan)
    }
    #expect(error?.code == .invalidSubscriptions)
    #expect(error?.message == "invalid: invalid kinds count")

    let other = [
      LeaseSubscription(filter: LeaseFilter(kinds: [9], pTags: [RejectionCase.hex]), pushClass: "default")
    ]
    let selfError = #expect(throws: LeaseBuildError.self) { try Self.build(subscriptions: other) }
    #expect(selfError?.message == "invalid: p-tag must be self")
  }

  @Test func checksTheTombstoneGeneration() throws {
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.builder(profile: nil).tombstone(
        installationID: T.installationID, generation: 0, createdAt: T.now, now: T.now, signer: T.account)
    }
    #expect(error?.code == .invalidGeneration)
  }

  @Test func refusesAClockOutsideEventRange() throws {
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.builder().active(
        endpoint: "g", subscriptions: Self.mention(), generation: 1, createdAt: T.now,
        installationID: T.installationID,
        now: Int64.max, signer: T.account)
    }
    #expect(error?.code == .invalidCreatedAt)
  }
}
