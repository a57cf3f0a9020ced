import NostrEvent
import NostrJSON
import PushDescriptor
import Testing

@testable import PushLease

/// Each of the descriptor's bounds at its limit (accepted) and one past it (refused), on both
/// sides: the validator's text and the builder's code.
@Suite struct LeaseBoundsTests {
  typealias T = LeaseTestSupport

  /// A bound: the plaintext at the limit, the plaintext one past it, and the rejection.
  struct Bound: Sendable, CustomTestStringConvertible {
    var name: String
    var atLimit: String
    var pastLimit: String
    var message: String
    var changes: [String: JSONValue] = [:]
    var testDescription: String { name }
  }

  static func values(_ value: String, _ count: Int) -> String {
    Array(repeating: "\"\(value)\"", count: count).joined(separator: ",")
  }

  static let hex = RejectionCase.hex
  /// Room for 64 hex values: the default 4096-byte plaintext bound would bind first.
  static let roomy = T.limit("max_plaintext_len", 16_384)

  static let bounds: [Bound] = [
    Bound(
      name: "max_endpoint_len 512",
      atLimit: T.active(["endpoint": "\"" + String(repeating: "e", count: 512) + "\""]),
      pastLimit: T.active(["endpoint": "\"" + String(repeating: "e", count: 513) + "\""]),
      message: "invalid: invalid endpoint length"),
    Bound(
      name: "max_endpoint_len in bytes",
      atLimit: T.active(["endpoint": "\"" + String(repeating: "é", count: 256) + "\""]),
      pastLimit: T.active(["endpoint": "\"" + String(repeating: "é", count: 256) + "e\""]),
      message: "invalid: invalid endpoint length"),
    Bound(
      name: "max_subscriptions_per_lease 4", atLimit: T.withSubscriptions("[$SUB,$SUB,$SUB,$SUB]"),
      pastLimit: T.withSubscriptions("[$SUB,$SUB,$SUB,$SUB,$SUB]"),
      message: "invalid: subscription quota exceeded"),
    Bound(
      name: "max_kinds 8", atLimit: T.withFilter(##"{"kinds":[9,9,9,9,9,9,9,9],"#p":["$ME"]}"##),
      pastLimit: T.withFilter(##"{"kinds":[9,9,9,9,9,9,9,9,9],"#p":["$ME"]}"##),
      message: "invalid: invalid kinds count"),
    Bound(
      name: "max_authors 64", atLimit: T.withFilter(##"{"kinds":[9],"authors":[\##(values(hex, 64))]}"##),
      pastLimit: T.withFilter(##"{"kinds":[9],"authors":[\##(values(hex, 65))]}"##),
      message: "invalid: invalid authors count", changes: roomy),
    Bound(
      name: "max_tag_values 64 (#p)",
      atLimit: T.withFilter(##"{"kinds":[9],"#p":[\##(values("$ME", 64))]}"##),
      pastLimit: T.withFilter(##"{"kinds":[9],"#p":[\##(values("$ME", 65))]}"##),
      message: "invalid: invalid #p count",
      changes: roomy),
    Bound(
      name: "max_tag_values 64 (#e)",
      atLimit: T.withFilter(##"{"kinds":[9],"#p":["$ME"],"#e":[\##(values(hex, 64))]}"##),
      pastLimit: T.withFilter(##"{"kinds":[9],"#p":["$ME"],"#e":[\##(values(hex, 65))]}"##),
      message: "invalid: invalid #e count", changes: roomy),
    Bound(
      name: "max_h 32",
      atLimit: T.withFilter(
        ##"{"kinds":[9],"#h":[\##(T.channels(32).map { "\"\($0)\"" }.joined(separator: ","))]}"##),
      pastLimit: T.withFilter(
        ##"{"kinds":[9],"#h":[\##(T.channels(33).map { "\"\($0)\"" }.joined(separator: ","))]}"##),
      message: "invalid: invalid #h count"),
    Bound(
      name: "max_ignore 2",
      atLimit: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","ignore":[{"kinds":[9]},{"kinds":[9]}]}]"##
      ),
      pastLimit: T.withSubscriptions(
        ##"[{"filter":{"kinds":[9],"#p":["$ME"]},"class":"default","ignore":[{"kinds":[9]},{"kinds":[9]},{"kinds":[9]}]}]"##
      ),
      message: "invalid: ignore quota exceeded", changes: T.limit("max_ignore", 2)),
    Bound(
      name: "max_string_len 36 (#h)", atLimit: T.withFilter(##"{"kinds":[9],"#h":["\##(T.channelA)"]}"##),
      pastLimit: T.withFilter(##"{"kinds":[9],"#h":["\##(T.channelA)"]}"##),
      message: "invalid: invalid string length",
      changes: T.limit("max_string_len", 36)),
    Bound(
      name: "max_string_len 21 (app_profile)", atLimit: T.active(), pastLimit: T.active(),
      message: "invalid: invalid string length", changes: T.limit("max_string_len", 21)),
    Bound(
      name: "max_plaintext_len 4096",
      atLimit: T.active() + String(repeating: " ", count: 4096 - T.fill(T.active()).utf8.count),
      pastLimit: T.active() + String(repeating: " ", count: 4097 - T.fill(T.active()).utf8.count),
      message: "invalid: plaintext too long"),
  ]

  /// The limit changes for the past-limit case: the same limit lowered by one where the
  /// plaintext stays the same.
  static func pastChanges(_ bound: Bound) -> [String: JSONValue] {
    switch bound.name {
    case "max_string_len 36 (#h)": T.limit("max_string_len", 35)
    case "max_string_len 21 (app_profile)": T.limit("max_string_len", 20)
    default: bound.changes
    }
  }

  @Test(arguments: bounds)
  func acceptsTheLimitAndRefusesOnePast(_ bound: Bound) throws {
    let at = try T.lease(bound.atLimit)
    #expect(T.verdict(at, validator: T.validator(T.demoDescriptor(bound.changes))) == nil)
    let past = try T.lease(bound.pastLimit)
    #expect(
      T.verdict(past, validator: T.validator(T.demoDescriptor(Self.pastChanges(bound)))) == bound.message)
  }

  @Test func boundsTheContentLengthAtTheLimit() throws {
    let event = try T.lease(T.active())
    let length = event.content.utf8.count
    #expect(
      T.verdict(event, validator: T.validator(T.demoDescriptor(T.limit("max_content_len", length)))) == nil)
    #expect(
      T.verdict(event, validator: T.validator(T.demoDescriptor(T.limit("max_content_len", length - 1))))
        == "invalid: content too long")
  }

  // MARK: The builder

  static func build(_ descriptor: PushDescriptor, endpoint: String = "grant-1") throws(LeaseBuildError)
    -> Event
  {
    try LeaseBuilderTests.build(LeaseBuilderTests.builder(descriptor), endpoint: endpoint)
  }

  @Test func buildsAtTheEndpointLimitAndRefusesOnePast() throws {
    let descriptor = T.demoDescriptor()
    _ = try Self.build(descriptor, endpoint: String(repeating: "e", count: 512))
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.build(descriptor, endpoint: String(repeating: "e", count: 513))
    }
    #expect(error?.code == .invalidEndpoint)
  }

  @Test func buildsAtThePlaintextLimitAndRefusesOnePast() throws {
    let length = try LeaseBuilderTests.decrypted(try Self.build(T.demoDescriptor())).utf8.count
    _ = try Self.build(T.demoDescriptor(T.limit("max_plaintext_len", length)))
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.build(T.demoDescriptor(T.limit("max_plaintext_len", length - 1)))
    }
    #expect(error?.code == .plaintextTooLong)
  }

  @Test func buildsAtTheContentLimitAndRefusesOnePast() throws {
    let length = try Self.build(T.demoDescriptor()).content.utf8.count
    _ = try Self.build(T.demoDescriptor(T.limit("max_content_len", length)))
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.build(T.demoDescriptor(T.limit("max_content_len", length - 1)))
    }
    #expect(error?.code == .contentTooLong)
  }

  @Test func buildsAtTheStringLimitAndRefusesOnePast() throws {
    let length = T.appProfile.id.utf8.count
    _ = try Self.build(T.demoDescriptor(T.limit("max_string_len", length)))
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.build(T.demoDescriptor(T.limit("max_string_len", length - 1)))
    }
    #expect(error?.code == .invalidAppProfile)
  }

  @Test func buildsAtTheSubscriptionLimitAndRefusesOnePast() throws {
    let four = Array(repeating: LeaseBuilderTests.mention()[0], count: 4)
    _ = try LeaseBuilderTests.build(subscriptions: four)
    let error = #expect(throws: LeaseBuildError.self) {
      try LeaseBuilderTests.build(subscriptions: four + LeaseBuilderTests.mention())
    }
    #expect(error?.code == .invalidSubscriptions)
    #expect(error?.message == "invalid: subscription quota exceeded")
  }

  @Test func buildsAtTheFilterCountLimitsAndRefusesOnePast() throws {
    for (filter, past, message) in [
      (
        LeaseFilter(kinds: Array(repeating: 9, count: 8), pTags: [T.me]),
        LeaseFilter(kinds: Array(repeating: 9, count: 9), pTags: [T.me]), "invalid: invalid kinds count"
      ),
      (
        LeaseFilter(kinds: [9], authors: Array(repeating: Self.hex, count: 64)),
        LeaseFilter(kinds: [9], authors: Array(repeating: Self.hex, count: 65)),
        "invalid: invalid authors count"
      ),
      (
        LeaseFilter(kinds: [9], hTags: T.channels(32)), LeaseFilter(kinds: [9], hTags: T.channels(33)),
        "invalid: invalid #h count"
      ),
    ] {
      let builder = LeaseBuilderTests.builder(T.demoDescriptor(Self.roomy))
      _ = try LeaseBuilderTests.build(
        builder, subscriptions: [LeaseSubscription(filter: filter, pushClass: "default")])
      let error = #expect(throws: LeaseBuildError.self) {
        try LeaseBuilderTests.build(
          builder, subscriptions: [LeaseSubscription(filter: past, pushClass: "default")])
      }
      #expect(error?.message == message)
    }
  }
}
