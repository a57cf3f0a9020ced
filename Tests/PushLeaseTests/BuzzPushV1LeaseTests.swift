import NIP44
import NostrEvent
import NostrJSON
import PushDescriptor
import Testing

@testable import PushLease

/// Leases for a `buzz-push-v1` relay: the seven-member plaintext the builder
/// writes, what the validator of each generation accepts, and the refusals before signing.
@Suite struct BuzzPushV1LeaseTests {
  typealias T = LeaseTestSupport

  static let v1Members = ["v", "origin", "transport", "endpoint", "generation", "active", "subscriptions"]

  static func mention() -> [LeaseSubscription] {
    [LeaseSubscription(filter: LeaseFilter(kinds: [9], pTags: [T.me]), pushClass: "default")]
  }

  static func build(_ builder: LeaseBuilder, endpoint: String = "grant-1") throws(LeaseBuildError) -> Event {
    try builder.active(
      endpoint: endpoint, subscriptions: mention(), generation: 3, createdAt: T.now,
      installationID: T.installationID, now: T.now, signer: T.account)
  }

  /// The content decrypted by NIP44 itself with the relay's key.
  static func decrypted(_ event: Event) throws -> String {
    let conversation = try NIP44.ConversationKey(secretKey: T.pushKey, publicKey: event.pubkey)
    return try NIP44.decrypt(event.content, conversationKey: conversation)
  }

  /// A valid v1 active plaintext template (`active` without `app_profile`), some members replaced.
  static func activeV1(_ replacements: [String: String?] = [:]) -> String {
    var all: [String: String?] = ["app_profile": nil]
    all.merge(replacements) { $1 }
    return T.active(all)
  }

  static func v1Validator(_ descriptor: PushDescriptor = T.demoV1Descriptor()) -> LeaseValidator {
    T.validator(descriptor)
  }

  @Test func readsTheV1FixtureAsBuzzPushV1() {
    let descriptor = T.demoV1Descriptor()
    #expect(descriptor.pushProtocol == .buzzPushV1)
    #expect(descriptor.appProfiles.isEmpty)
    #expect(descriptor.origin == T.origin)
    #expect(descriptor.currentKey?.id == T.keyID)
    #expect(T.demoDescriptor().pushProtocol == .nipPL)
  }

  @Test func writesAV1PlaintextWithExactlySevenKeys() throws {
    let event = try Self.build(LeaseBuilder(descriptor: T.demoV1Descriptor(), transport: "apns"))
    let plaintext = try Self.decrypted(event)
    let object = try #require(try JSONReader().read(plaintext).objectValue)
    #expect(Set(object.keys) == Set(Self.v1Members))
    #expect(object.keys == Self.v1Members)
    #expect(
      plaintext
        == ##"{"v":1,"origin":"ws://127.0.0.1:48111","transport":"apns","endpoint":"grant-1","generation":3,"##
        + ##""active":true,"subscriptions":[{"filter":{"kinds":[9],"#p":["\##(T.me)"]},"class":"default"}]}"##
    )
    // The nip-pl lease for the same request has the eighth key.
    let nipPL = try Self.build(LeaseBuilder(descriptor: T.demoDescriptor(), appProfile: T.appProfile))
    let nipPLKeys = try #require(try JSONReader().read(try Self.decrypted(nipPL)).objectValue?.keys)
    #expect(Set(nipPLKeys).subtracting(Self.v1Members) == ["app_profile"])
  }

  @Test func opensAV1LeaseWithoutAnAppProfile() throws {
    let event = try Self.build(LeaseBuilder(descriptor: T.demoV1Descriptor(), transport: "apns"))
    let opened = try Self.v1Validator().open(event, tenantOrigin: T.origin, now: T.now)
    #expect(
      opened.state
        == .active(
          appProfile: nil, transport: "apns", endpoint: "grant-1",
          endpointHash: Hex.encode(NostrSHA256.hash(Array("grant-1".utf8))), subscriptions: Self.mention()))
    #expect(opened.generation == 3)
  }

  @Test func writesTheSameTombstoneForBothGenerations() throws {
    let v1 = try LeaseBuilder(descriptor: T.demoV1Descriptor()).tombstone(
      installationID: T.installationID, generation: 4, createdAt: T.now, now: T.now, signer: T.account)
    #expect(
      try Self.decrypted(v1) == #"{"v":1,"origin":"ws://127.0.0.1:48111","generation":4,"active":false}"#)
    #expect(try Self.v1Validator().open(v1, tenantOrigin: T.origin, now: T.now).state == .tombstone)
    #expect(try T.validator().open(v1, tenantOrigin: T.origin, now: T.now).state == .tombstone)
  }

  struct VerdictCase: Sendable, CustomTestStringConvertible {
    var note: String
    var plaintext: String
    var v1: Bool
    var expected: String?
    var testDescription: String { "\(v1 ? "buzz-push-v1" : "nip-pl"): \(note)" }
  }

  @Test(arguments: [
    VerdictCase(note: "v1 plaintext", plaintext: activeV1(), v1: true, expected: nil),
    VerdictCase(
      note: "an app_profile member", plaintext: T.active(), v1: true,
      expected: "invalid: unknown field: app_profile"
    ),
    VerdictCase(
      note: "app_profile null", plaintext: T.active(["app_profile": "null"]), v1: true,
      expected: "invalid: unknown field: app_profile"),
    VerdictCase(
      note: "no transport", plaintext: activeV1(["transport": nil]), v1: true,
      expected: "invalid: missing transport"),
    VerdictCase(
      note: "a transport class_support lacks", plaintext: activeV1(["transport": #""fcm""#]), v1: true,
      expected: "invalid: transport mismatch"),
    VerdictCase(
      note: "a transport that is a number", plaintext: activeV1(["transport": "1"]), v1: true,
      expected: "invalid: invalid lease schema: transport must be a string"),
    VerdictCase(
      note: "an empty endpoint", plaintext: activeV1(["endpoint": #""""#]), v1: true,
      expected: "invalid: invalid endpoint length"),
    VerdictCase(
      note: "a tombstone", plaintext: T.tombstone(), v1: true, expected: nil),
    VerdictCase(
      note: "no app_profile", plaintext: activeV1(), v1: false, expected: "invalid: missing app_profile"),
    VerdictCase(note: "nip-pl plaintext", plaintext: T.active(), v1: false, expected: nil),
  ])
  func judgesByTheRelaysGeneration(_ row: VerdictCase) throws {
    let validator = row.v1 ? Self.v1Validator() : T.validator()
    #expect(T.verdict(try T.lease(row.plaintext), validator: validator) == row.expected)
  }

  @Test func acceptsAnyTransportClassSupportLists() throws {
    let descriptor = T.demoV1Descriptor([
      "class_support": try JSONReader().read(#"{"apns":["default"],"fcm":["high"]}"#)
    ])
    #expect(descriptor.classSupportTransports == ["apns", "fcm"])
    let high = ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"high"}]"##
    let event = try T.lease(Self.activeV1(["transport": #""fcm""#, "subscriptions": high]))
    #expect(T.verdict(event, validator: Self.v1Validator(descriptor)) == nil)
    #expect(T.verdict(event, validator: Self.v1Validator()) == "invalid: transport mismatch")
    // The builder runs the same check: fcm offers "high", not "default".
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.build(LeaseBuilder(descriptor: descriptor, transport: "fcm"))
    }
    #expect(error?.code == .invalidSubscriptions)
    #expect(error?.message == "invalid: class not supported")
  }

  struct BuildCase: Sendable, CustomTestStringConvertible {
    var note: String
    var v1: Bool
    var profile: PushAppProfile?
    var transport: String?
    var endpoint = "grant-1"
    var field: String
    var testDescription: String { "\(v1 ? "buzz-push-v1" : "nip-pl"): \(note)" }
  }

  @Test(arguments: [
    BuildCase(
      note: "an advertised-looking profile for v1, before the endpoint", v1: true, profile: T.appProfile,
      endpoint: "", field: "app_profile"),
    BuildCase(note: "a transport class_support lacks", v1: true, transport: "fcm", field: "transport"),
    BuildCase(note: "no transport", v1: true, field: "transport"),
    BuildCase(note: "a transport but no profile", v1: false, transport: "apns", field: "app_profile"),
  ])
  func refusesTheAppIdentityBeforeSigning(_ row: BuildCase) throws {
    let descriptor = row.v1 ? T.demoV1Descriptor() : T.demoDescriptor()
    let builder =
      row.transport.map { LeaseBuilder(descriptor: descriptor, transport: $0) }
      ?? LeaseBuilder(descriptor: descriptor, appProfile: row.profile)
    let error = #expect(throws: LeaseBuildError.self) { try Self.build(builder, endpoint: row.endpoint) }
    #expect(error?.code == .invalidAppProfile)
    #expect(error?.field == row.field)
  }

  @Test func refusesAnEmptyV1EndpointAfterTheTransport() throws {
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.build(LeaseBuilder(descriptor: T.demoV1Descriptor(), transport: "apns"), endpoint: "")
    }
    #expect(error?.code == .invalidEndpoint)
  }
}
