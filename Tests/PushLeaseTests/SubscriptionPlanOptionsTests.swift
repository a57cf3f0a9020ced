import NostrEvent
import NostrJSON
import PushDescriptor
import Testing

@testable import PushLease

/// The planner's options (`README.md`): a push class per kind of subscription within the
/// descriptor's `class_support`, and muted senders as `ignore` `authors` filters within
/// `max_ignore`, the rest reported for the extension to drop.
@Suite struct SubscriptionPlanOptionsTests {
  typealias T = LeaseTestSupport

  static let sender = SecretKey.generate()

  static func message(from key: SecretKey, tags: [[String]]) throws -> Event {
    try UnsignedEvent(pubkey: key.publicKeyHex, createdAt: T.now, kind: 9, tags: tags, content: "hi")
      .signed(with: key)
  }

  @Test func givesMentionsTheirOwnClassWhereClassSupportAllowsIt() throws {
    let options = SubscriptionPlanOptions(mentionClass: .timeSensitive, directMessageClass: .silent)
    let plan = try SubscriptionPlanner(descriptor: T.demoDescriptor()).plan(
      for: T.me, joined: [T.channelA], directMessages: true, options: options)
    #expect(plan.subscriptions.map(\.pushClass) == ["time_sensitive", "default", "silent"])
    #expect(plan.mentionClass == .timeSensitive)

    let plain = T.demoDescriptor([
      "class_support": .object(JSONObject(["apns": .array([.string("default")])]))
    ])
    let fallback = try SubscriptionPlanner(descriptor: plain).plan(
      for: T.me, joined: [T.channelA], directMessages: true, options: options)
    #expect(fallback.subscriptions.map(\.pushClass) == ["default", "default", "default"])
    #expect(fallback.mentionClass == .default && fallback.directMessageClass == .default)
  }

  @Test func mutesSendersWithAuthorsIgnoresThatTheMatcherApplies() throws {
    let options = SubscriptionPlanOptions(mutedSenders: [Self.sender.publicKeyHex.uppercased()])
    let plan = try SubscriptionPlanner(descriptor: T.demoDescriptor()).plan(
      for: T.me, joined: [T.channelA], directMessages: true, options: options)
    let muted = LeaseFilter(kinds: PushDescriptor.requiredPushKinds, authors: [Self.sender.publicKeyHex])
    #expect(plan.subscriptions[0].ignore.last == muted)
    #expect(plan.subscriptions[1].ignore.last == muted)
    #expect(plan.subscriptions[2].ignore.isEmpty)
    #expect(plan.unplacedMutedSenders.isEmpty)

    let other = SecretKey.generate()
    let roster: (String) -> Set<String>? = { _ in [T.me, Self.sender.publicKeyHex, other.publicKeyHex] }
    let fromMuted = try Self.message(from: Self.sender, tags: [["h", T.channelA], ["p", T.me]])
    let fromOther = try Self.message(from: other, tags: [["h", T.channelA], ["p", T.me]])
    #expect(!plan.subscriptions.contains { $0.matches(fromMuted, owner: T.me, roster: roster) })
    #expect(plan.subscriptions.contains { $0.matches(fromOther, owner: T.me, roster: roster) })
  }

  @Test func reportsTheMutedSendersPastMaxIgnore() throws {
    let senders = (0..<5).map { _ in SecretKey.generate().publicKeyHex }
    let descriptor = T.demoDescriptor(T.limit("max_ignore", 2).merging(T.limit("max_authors", 2)) { $1 })
    let plan = try SubscriptionPlanner(descriptor: descriptor).plan(
      for: T.me, joined: [], options: SubscriptionPlanOptions(mutedSenders: senders + [senders[0]]))
    // The self ignore takes one slot; one filter of two authors fits in the other.
    #expect(plan.subscriptions[0].ignore.count == 2)
    #expect(plan.subscriptions[0].ignore[1].authors == Array(senders[0..<2]))
    #expect(plan.unplacedMutedSenders == Array(senders[2...]))
  }

  @Test func refusesAMutedSenderThatIsNotAKey() {
    let error = #expect(throws: LeaseBuildError.self) {
      try SubscriptionPlanner(descriptor: T.demoDescriptor()).plan(
        for: T.me, joined: [], options: SubscriptionPlanOptions(mutedSenders: [T.me, "npub1nope"]))
    }
    #expect(error?.code == .invalidMutedSender)
    #expect(error?.field == "muted_senders[1]")
  }
}
