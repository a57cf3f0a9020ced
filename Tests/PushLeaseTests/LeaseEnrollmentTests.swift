import Foundation
import NostrEvent
import PushDescriptor
import Testing

@testable import PushLease

/// What the app keeps per (origin, account): the installation id, and generations and
/// `created_at` values that never repeat.
@Suite struct LeaseEnrollmentTests {
  typealias T = LeaseTestSupport

  static func enrollment(lastGeneration: Int64 = 4, lastCreatedAt: Int64 = T.now) -> LeaseEnrollment {
    LeaseEnrollment(
      origin: T.origin, pubkey: T.me, installationID: T.installationID, lastGeneration: lastGeneration,
      lastCreatedAt: lastCreatedAt)
  }

  @Test func advancesTheGenerationAndTheClockAndRecordsBoth() {
    var enrollment = Self.enrollment()
    let later = enrollment.next(now: T.now + 60)
    #expect(later == LeaseEnrollment.Stamp(generation: 5, createdAt: T.now + 60))
    let sameSecond = enrollment.next(now: T.now + 60)
    #expect(sameSecond == LeaseEnrollment.Stamp(generation: 6, createdAt: T.now + 61))
    let clockBehind = enrollment.next(now: T.now)
    #expect(clockBehind == LeaseEnrollment.Stamp(generation: 7, createdAt: T.now + 62))
    #expect(enrollment.lastGeneration == 7)
    #expect(enrollment.lastCreatedAt == T.now + 62)
  }

  @Test func startsAtGenerationOneWithAFreshInstallationID() {
    var first = LeaseEnrollment(origin: T.origin, pubkey: T.me)
    let second = LeaseEnrollment(origin: T.origin, pubkey: T.me)
    #expect(first.installationID != second.installationID)
    #expect(first.next(now: T.now) == LeaseEnrollment.Stamp(generation: 1, createdAt: T.now))
  }

  @Test func makesAnEnrollThenARevokeInOneSecondOrdered() throws {
    var enrollment = Self.enrollment()
    let builder = LeaseBuilderTests.builder()
    let enroll = enrollment.next(now: T.now + 5)
    let active = try builder.active(
      endpoint: "g", subscriptions: LeaseBuilderTests.mention(), generation: enroll.generation,
      createdAt: enroll.createdAt, installationID: enrollment.installationID, now: T.now + 5,
      signer: T.account)
    let revoke = enrollment.next(now: T.now + 5)
    let tombstone = try builder.tombstone(
      installationID: enrollment.installationID, generation: revoke.generation, createdAt: revoke.createdAt,
      now: T.now + 5, signer: T.account)
    #expect(tombstone.createdAt > active.createdAt)
    let opened = try T.validator().open(tombstone, tenantOrigin: T.origin, now: T.now + 5)
    #expect(opened.generation == 6)
  }

  @Test func encodesWithSnakeCaseKeysAndANullGrant() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let text = String(decoding: try encoder.encode(Self.enrollment()), as: UTF8.self)
    #expect(
      text
        == #"{"d":"00112233445566778899aabbccddeeff","grant_expires_at":null,"last_created_at":1767225600,"#
        + #""last_generation":4,"origin":"ws:\/\/127.0.0.1:48111","pubkey":"\#(T.me)"}"#)
  }

  @Test func decodesWhatItEncodes() throws {
    var enrollment = Self.enrollment()
    enrollment.grantExpiresAt = T.now + 86_400
    let decoded = try JSONDecoder().decode(LeaseEnrollment.self, from: try JSONEncoder().encode(enrollment))
    #expect(decoded == enrollment)
  }

  @Test func refusesToDecodeAnInstallationIDOfAnotherShape() {
    let json =
      #"{"origin":"o","pubkey":"p","d":"00112233445566778899AABBCCDDEEFF","last_generation":1,"last_created_at":1}"#
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(LeaseEnrollment.self, from: Data(json.utf8))
    }
  }

  @Test func generatesInstallationIDsOf32LowercaseHex() {
    let ids = (0..<64).map { _ in InstallationID.generate() }
    #expect(ids.allSatisfy { Hex.isLowercaseHex($0.rawValue, length: 32) })
    #expect(Set(ids).count == 64)
  }

  @Test(arguments: [
    ("00112233445566778899aabbccddeeff", true), ("00112233445566778899AABBCCDDEEFF", false),
    ("00112233445566778899aabbccddeef", false), ("00112233445566778899aabbccddeeff0", false),
    ("0011223344556677-899aabbccddeeff", false), ("", false),
  ])
  func acceptsOnly32LowercaseHexAsAnInstallationID(_ text: String, _ valid: Bool) {
    #expect((InstallationID(rawValue: text) != nil) == valid)
  }
}
