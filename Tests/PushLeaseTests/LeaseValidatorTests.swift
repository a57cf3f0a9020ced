import NostrEvent
import NostrJSON
import PushDescriptor
import Testing

@testable import PushLease

/// The validator's keys: which it accepts at init, and which leases each lets it open.
@Suite struct LeaseValidatorTests {
  typealias T = LeaseTestSupport

  static let retiring = SecretKey.generate()
  static let current = SecretKey.generate()
  static let twoKeys = T.demoDescriptor([
    "keys": .array([
      PushKey(id: "old", pubkey: retiring.publicKeyHex, retiring: true).jsonValue,
      PushKey(id: "new", pubkey: current.publicKeyHex, current: true).jsonValue,
    ])
  ])

  @Test func opensALeaseSealedToARetiringKeyItHolds() throws {
    let validator = try LeaseValidator(
      descriptor: Self.twoKeys, pushKeys: ["old": Self.retiring, "new": Self.current])
    let content = try #require(
      LeaseCipher.seal(T.fill(T.active()), from: T.account, to: Self.retiring.publicKeyHex))
    let event = try T.lease("", tags: [T.validTags[0], T.validTags[1], ["exec", "old"]], content: content)
    #expect(try validator.open(event, tenantOrigin: T.origin, now: T.now).keyID == "old")
    #expect(validator.keyIDs == ["new", "old"])
  }

  @Test func refusesALeaseForAListedKeyItDoesNotHold() throws {
    let validator = try LeaseValidator(descriptor: Self.twoKeys, pushKeys: ["new": Self.current])
    let event = try T.lease("", tags: [T.validTags[0], T.validTags[1], ["exec", "old"]], content: "x")
    #expect(T.verdict(event, validator: validator) == "invalid: unknown executor key")
  }

  @Test func refusesContentSealedToAnotherKey() throws {
    let validator = try LeaseValidator(
      descriptor: Self.twoKeys, pushKeys: ["old": Self.retiring, "new": Self.current])
    let content = try #require(
      LeaseCipher.seal(T.fill(T.active()), from: T.account, to: Self.retiring.publicKeyHex))
    let event = try T.lease("", tags: [T.validTags[0], T.validTags[1], ["exec", "new"]], content: content)
    #expect(T.verdict(event, validator: validator) == "invalid: invalid encrypted content")
  }

  @Test func refusesContentSealedByAnotherAuthor() throws {
    let content = try #require(
      LeaseCipher.seal(T.fill(T.active()), from: SecretKey.generate(), to: T.pushKey.publicKeyHex))
    #expect(T.verdict(try T.lease("", content: content)) == "invalid: invalid encrypted content")
  }

  @Test func refusesKeysThatNameNoEntryOrAnotherPubkey() {
    for keys in [[:], ["nope": Self.current], ["old": Self.current]] as [[String: SecretKey]] {
      let error = #expect(throws: LeaseBuildError.self) {
        try LeaseValidator(descriptor: Self.twoKeys, pushKeys: keys)
      }
      #expect(error?.code == .unknownPushKey)
    }
  }

  @Test func hashesTheEndpointBytes() throws {
    let opened = try T.validator().open(
      try T.lease(T.active(["endpoint": #""é""#])), tenantOrigin: T.origin, now: T.now)
    guard case .active(_, _, let endpoint, let hash, _) = opened.state else {
      Issue.record("not active")
      return
    }
    #expect(endpoint == "é")
    #expect(hash == Hex.encode(NostrSHA256.hash([0xC3, 0xA9])))
  }

  @Test func honoursAnotherSkew() throws {
    let validator = try LeaseValidator(
      descriptor: T.demoDescriptor(), pushKeys: [T.keyID: T.pushKey], allowedSkew: 0)
    let event = try T.lease(
      T.active(), tags: [T.validTags[0], ["expiration", String(T.now)], T.validTags[2]])
    #expect(T.verdict(event, validator: validator) == "invalid: lease already expired")
    #expect(T.verdict(event) == nil)
  }
}

/// The two error values compare the way the spec says callers match them.
@Suite struct LeaseErrorValueTests {
  @Test func comparesRejectionsByTheirCode() {
    #expect(LeaseRejection(.filter, "invalid h tag") != LeaseRejection(.schema, "invalid h tag"))
    #expect(LeaseRejection(.filter, "invalid h tag") == LeaseRejection(.filter, "invalid string length"))
    #expect(
      Set([LeaseRejection(.filter, "a"), LeaseRejection(.filter, "b"), LeaseRejection(.d, "a")]).count == 2)
    #expect(LeaseRejection(.d, "missing d tag").message == "invalid: missing d tag")
    #expect(LeaseRejection(.d, "missing d tag").reason == "missing d tag")
  }

  @Test func comparesBuildErrorsByCodeAndField() {
    #expect(
      LeaseBuildError(code: .invalidEndpoint, message: "one text")
        == LeaseBuildError(code: .invalidEndpoint, message: "another"))
    #expect(
      LeaseBuildError(code: .invalidEndpoint, message: "x")
        != LeaseBuildError(code: .invalidGeneration, message: "x"))
    #expect(
      LeaseBuildError(code: .invalidChannelID, field: "joined[0]", message: "x")
        != LeaseBuildError(code: .invalidChannelID, message: "x"))
    #expect(LeaseBuildError.Code.contentTooLong.rawValue == "content_too_long")
  }
}
