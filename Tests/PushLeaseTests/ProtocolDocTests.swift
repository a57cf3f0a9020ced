import Foundation
import NIP44
import NostrEvent
import NostrJSON
import PushDescriptor
import Testing

@testable import PushLease

/// The worked examples of `Docs/Protocol/Lease.md`, each the exact bytes the code produces for
/// the inputs the text names.
@Suite struct ProtocolDocTests {
  typealias T = LeaseTestSupport

  /// The JSON block after `<!-- checked: name -->` in the document.
  static func example(_ name: String) throws -> String {
    let text = try String(
      contentsOf: T.packageRoot.appendingPathComponent("Docs/Protocol/Lease.md"), encoding: .utf8)
    let lines = text.components(separatedBy: "\n")
    let marker = try #require(lines.firstIndex(of: "<!-- checked: \(name) -->"), "no example \(name)")
    try #require(lines[marker + 1] == "```json")
    return lines[marker + 2]
  }

  /// The plan of the example: mentions, channel A, channel B muted.
  static func plan() throws -> [LeaseSubscription] {
    try SubscriptionPlanner(descriptor: T.demoDescriptor())
      .plan(for: T.me, joined: [T.channelA, T.channelB], muted: [T.channelB])
  }

  static func decrypted(_ event: Event) throws -> String {
    let conversation = try NIP44.ConversationKey(secretKey: T.pushKey, publicKey: event.pubkey)
    return try NIP44.decrypt(event.content, conversationKey: conversation)
  }

  @Test func theActivePlaintextIsTheDocuments() throws {
    let event = try LeaseBuilder(descriptor: T.demoDescriptor(), appProfile: T.appProfile).active(
      endpoint: "grant-1", subscriptions: Self.plan(), generation: 7, createdAt: T.now,
      installationID: T.installationID, grantExpiresAt: nil, now: T.now, signer: T.account)
    #expect(try Self.decrypted(event) == Self.example("the active plaintext"))
    #expect(event.tags.map { $0.first ?? "" } == ["d", "expiration", "exec"])
  }

  @Test func theTombstonePlaintextIsTheDocuments() throws {
    let event = try LeaseBuilder(descriptor: T.demoDescriptor()).tombstone(
      installationID: T.installationID, generation: 8, createdAt: T.now, now: T.now, signer: T.account)
    #expect(try Self.decrypted(event) == Self.example("the tombstone plaintext"))
  }

  @Test func theSavedAccountIsTheDocuments() throws {
    let descriptor = T.demoDescriptor()
    let key = try #require(descriptor.currentKey)
    let account = try EnrolledAccount(
      origin: RelayOrigin(descriptor.origin), pushKeyID: key.id, pushKey: #require(NostrID(key.pubkey)),
      account: #require(NostrID(T.me)), installationID: T.installationID, generation: 7,
      subscriptions: Self.plan(),
      mutedPubkeys: [#require(NostrID("00c6bff05ebf85e606dcd2ca893322c8737e334edc7a8c47c925a761fb825566"))])
    let documented = try Self.example("the saved account")
    #expect(String(decoding: account.jsonBytes, as: UTF8.self) == documented)
    #expect(try EnrolledAccount(jsonBytes: Array(documented.utf8)) == account)
  }
}
