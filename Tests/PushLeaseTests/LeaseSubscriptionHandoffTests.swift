import Foundation
import NIP44
import NostrEvent
import NostrJSON
import PushDescriptor
import PushLease
import Testing

/// The public handoff from app to extension: checked initialisers that
/// refuse what the lease grammar refuses, the plaintext's JSON form byte for byte, and the
/// `EnrolledAccount` the app saves — through public API only (no `@testable` in this file).
@Suite struct LeaseSubscriptionHandoffTests {
  typealias T = LeaseTestSupport

  /// The first rejection `body` throws, as its relay text; nil when it does not throw.
  static func rejection(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch {
      return (error as? LeaseRejection)?.message ?? "not a LeaseRejection: \(error)"
    }
  }

  @Test func filtersRefuseWhatTheGrammarRefuses() {
    let descriptor = T.demoDescriptor()
    #expect(
      Self.rejection { _ = try LeaseFilter(kinds: [], pTags: [T.me], descriptor: nil) }
        == "invalid: invalid kinds count")
    #expect(
      Self.rejection { _ = try LeaseFilter(kinds: [9], authors: ["abc"], descriptor: nil) }
        == "invalid: non-exact match value for author")
    #expect(
      Self.rejection { _ = try LeaseFilter(kinds: [9], eTags: [], descriptor: nil) }
        == "invalid: invalid #e count")
    #expect(Self.rejection { _ = try LeaseFilter(kinds: [-1], pTags: [T.me], descriptor: nil) } != nil)
    // `#h` follows the descriptor's h_grammar only when one is given.
    #expect(Self.rejection { _ = try LeaseFilter(kinds: [9], hTags: ["general"], descriptor: nil) } == nil)
    #expect(
      Self.rejection { _ = try LeaseFilter(kinds: [9], hTags: ["general"], descriptor: descriptor) }
        == "invalid: invalid h tag")
    #expect(
      Self.rejection { _ = try LeaseFilter(kinds: [1], hTags: [T.channelA], descriptor: descriptor) }
        == "invalid: kind not push-eligible")
    #expect(
      Self.rejection { _ = try LeaseFilter(kinds: [9], hTags: [T.channelA], descriptor: descriptor) } == nil)
  }

  @Test func subscriptionsRefuseAnUnnarrowedFilterAndAZeroCeiling() throws {
    let everything = try LeaseFilter(kinds: [9], descriptor: nil)
    #expect(
      Self.rejection { _ = try LeaseSubscription(filter: everything, class: "default") }
        == "invalid: lease filter not narrowed")
    let mention = try LeaseFilter(kinds: [9], pTags: [T.me], descriptor: nil)
    #expect(
      Self.rejection { _ = try LeaseSubscription(filter: mention, class: "default", pTagsMax: 0) }
        == "invalid: p_tags_max must be positive")
    #expect(
      Self.rejection { _ = try LeaseSubscription(filter: mention, class: "") }
        == "invalid: class not supported")
    let made = try LeaseSubscription(
      filter: mention, class: "time_sensitive", ignore: [everything], pTagsMax: 5)
    #expect(made.filter.pTags == [T.me])
    #expect(made.pushClass == "time_sensitive")
    #expect(made.ignore == [everything])
    #expect(made.pTagsMax == 5)
  }

  /// The planner's subscriptions, built into a lease: the JSON the account saves holds them
  /// byte for byte as the decrypted plaintext does, and reads back equal.
  @Test func theSavedSubscriptionsAreThePlaintextsBytes() throws {
    let descriptor = T.demoDescriptor()
    let plan = try SubscriptionPlanner(descriptor: descriptor)
      .plan(for: T.me, joined: [T.channelB, T.channelA], muted: [T.channelB])
    let event = try LeaseBuilder(descriptor: descriptor, appProfile: T.appProfile).active(
      endpoint: "grant-1", subscriptions: plan, generation: 3, createdAt: T.now,
      installationID: T.installationID, grantExpiresAt: nil, now: T.now, signer: T.account)
    let conversation = try NIP44.ConversationKey(secretKey: T.pushKey, publicKey: event.pubkey)
    let plaintext = try NIP44.decrypt(event.content, conversationKey: conversation)
    let account = try EnrolledAccount(
      origin: RelayOrigin(descriptor.origin), pushKeyID: T.keyID,
      pushKey: #require(NostrID(T.pushKey.publicKeyHex)),
      account: #require(NostrID(T.me)), installationID: T.installationID, generation: 3, subscriptions: plan,
      mutedPubkeys: [#require(NostrID(String(repeating: "ab", count: 32)))],
      presentationWindow: .seconds(7200))

    let saved = String(decoding: account.jsonBytes, as: UTF8.self)
    let subscriptionsText = JSONWriter.string(.array(plan.map(\.jsonValue)))
    #expect(plaintext.contains("\"subscriptions\":" + subscriptionsText + "}"))
    #expect(saved.contains("\"subscriptions\":" + subscriptionsText + ","))

    let read = try EnrolledAccount(jsonBytes: account.jsonBytes)
    #expect(read == account)
    #expect(read.subscriptions == plan)
    #expect(read.presentationWindow == .seconds(7200))
    let viaFoundation = try JSONDecoder().decode(EnrolledAccount.self, from: JSONEncoder().encode(account))
    #expect(viaFoundation == account)
    // Each subscription alone reads back from its own JSON text.
    for subscription in plan {
      #expect(
        try LeaseSubscription(jsonValue: JSONReader().read(JSONWriter.string(subscription.jsonValue)))
          == subscription)
    }
  }

  @Test func aSavedAccountWithABadMemberIsRefusedByName() throws {
    let descriptor = T.demoDescriptor()
    let plan = try SubscriptionPlanner(descriptor: descriptor).plan(for: T.me, joined: [T.channelA])
    let account = try EnrolledAccount(
      origin: RelayOrigin(descriptor.origin), pushKeyID: T.keyID,
      pushKey: #require(NostrID(T.pushKey.publicKeyHex)),
      account: #require(NostrID(T.me)), installationID: T.installationID, generation: 1, subscriptions: plan)
    let text = String(decoding: account.jsonBytes, as: UTF8.self)
    let cases: [(String, String)] = [
      (text.replacingOccurrences(of: "\"#h\":[\"\(T.channelA)\"]", with: "\"#h\":[]"), "subscriptions"),
      (text.replacingOccurrences(of: "\"d\":\"", with: "\"d\":\"x"), "d"),
      (text.replacingOccurrences(of: "\"generation\":1", with: "\"generation\":0"), "generation"),
      (text.replacingOccurrences(of: "{\"origin\"", with: "{\"extra\":1,\"origin\""), "extra"),
      (text.replacingOccurrences(of: "\"account\":\"", with: "\"account\":\"A"), "account"),
    ]
    for (bytes, field) in cases {
      #expect(bytes != text)
      let error = #expect(throws: EnrolledAccountError.self) {
        try EnrolledAccount(jsonBytes: Array(bytes.utf8))
      }
      #expect(error?.code == .invalidAccount)
      #expect(error?.field == field)
    }
  }

  @Test func theEnrollmentsLastGenerationIsReadable() {
    var enrollment = LeaseEnrollment(origin: T.origin, pubkey: T.me, installationID: T.installationID)
    #expect(enrollment.lastGeneration == 0)
    let stamp = enrollment.next(now: T.now)
    #expect(enrollment.lastGeneration == stamp.generation)
    #expect(enrollment.lastCreatedAt == T.now)
  }
}
