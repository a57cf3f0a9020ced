import NostrEvent
import NostrJSON
import PushDescriptor
import Testing

@testable import PushLease

/// The planner's social options: each notification a `#p` = account subscription with its class,
/// the descriptor's `push_kinds` enforced, the account, muted senders and muted threads as `ignore`
/// filters the relay's matching rule applies, the hellthread gate when asked.
@Suite struct SocialPlanTests {
  typealias T = LeaseTestSupport

  static let sender = SecretKey.generate()
  static let stranger = SecretKey.generate()
  static let root = String(repeating: "ab", count: 32)

  /// The demo descriptor offering every social kind beside the chat kinds.
  static let socialDescriptor = T.demoDescriptor([
    "push_kinds": .array(
      (EventKind.channelMessages + [1, 6, 7, 16, 1059, 1111, 9735]).map { .integer(Int64($0)) })
  ])

  static func note(
    _ key: SecretKey, kind: Int = EventKind.textNote, tags: [[String]], content: String = "hi"
  ) throws -> Event {
    try UnsignedEvent(pubkey: key.publicKeyHex, createdAt: T.now, kind: kind, tags: tags, content: content)
      .signed(with: key)
  }

  static func wakes(_ plan: SocialPlan, _ event: Event) -> Bool {
    plan.subscriptions.contains { $0.matches(event, owner: T.me, roster: { _ in nil }) }
  }

  @Test func groupsNotificationsByTheirGrantedClass() throws {
    let options = SocialPlanOptions(notifications: [
      .mentions: .timeSensitive, .comments: .timeSensitive, .reactions: .default, .reposts: .default,
      .zaps: .urgent, .directMessages: .silent,
    ])
    let plan = try SubscriptionPlanner(descriptor: Self.socialDescriptor).socialPlan(
      for: T.me, options: options)
    // `urgent` is not in the demo's class_support: zaps fall back to `default`.
    #expect(plan.classes[.zaps] == .default)
    #expect(plan.subscriptions.map(\.pushClass) == ["default", "time_sensitive", "silent"])
    #expect(plan.subscriptions.map(\.filter.kinds) == [[6, 7, 16, 9735], [1, 1111], [1059]])
    #expect(plan.subscriptions.allSatisfy { $0.filter.pTags == [T.me] })
    #expect(plan.subscriptions[2].ignore.isEmpty)
    #expect(plan.subscriptions[0].ignore == [LeaseFilter(kinds: [1, 6, 7, 16, 1111, 9735], authors: [T.me])])
  }

  @Test func refusesAKindTheDescriptorDoesNotListNamingIt() {
    let error = #expect(throws: LeaseBuildError.self) {
      try SubscriptionPlanner(descriptor: T.demoDescriptor()).socialPlan(
        for: T.me, options: SocialPlanOptions(notifications: [.reactions: .default]))
    }
    #expect(error?.code == .kindNotOffered)
    #expect(error?.field == "kinds")
    #expect(error?.message.contains("kind 7 (reaction)") == true)
  }

  @Test func mutedSendersAndThreadsNeverWakeTheAccount() throws {
    let options = SocialPlanOptions(
      notifications: [.mentions: .default, .reactions: .default],
      mutedSenders: [Self.sender.publicKeyHex.uppercased()], mutedThreads: [Self.root])
    let plan = try SubscriptionPlanner(descriptor: Self.socialDescriptor).socialPlan(
      for: T.me, options: options)
    #expect(plan.unplacedMutedSenders.isEmpty && plan.unplacedMutedThreads.isEmpty)
    let mention = try Self.note(Self.stranger, tags: [["p", T.me]])
    let reply = try Self.note(Self.stranger, tags: [["e", Self.root, "", "root"], ["p", T.me]])
    let fromMuted = try Self.note(Self.sender, tags: [["p", T.me]])
    let reaction = try Self.note(
      Self.stranger, kind: EventKind.reaction, tags: [["e", Self.root], ["p", T.me]])
    let own = try Self.note(T.account, tags: [["p", T.me]])
    let repost = try Self.note(Self.stranger, kind: EventKind.repost, tags: [["p", T.me]])
    #expect(Self.wakes(plan, mention))
    #expect(!Self.wakes(plan, reply))
    #expect(!Self.wakes(plan, fromMuted))
    #expect(!Self.wakes(plan, reaction))
    #expect(!Self.wakes(plan, own))
    // Reposts were not asked for.
    #expect(!Self.wakes(plan, repost))
  }

  @Test func theHellthreadGateOnlyWhenAsked() throws {
    let crowd = (0..<21).map { _ in ["p", SecretKey.generate().publicKeyHex] }
    let crowded = try Self.note(Self.stranger, tags: [["p", T.me]] + crowd)
    let planner = SubscriptionPlanner(descriptor: Self.socialDescriptor)
    let open = try planner.socialPlan(
      for: T.me, options: SocialPlanOptions(notifications: [.mentions: .default]))
    let gated = try planner.socialPlan(
      for: T.me, options: SocialPlanOptions(notifications: [.mentions: .default], pTagsMax: 20))
    #expect(Self.wakes(open, crowded))
    #expect(!Self.wakes(gated, crowded))
    #expect(gated.subscriptions[0].pTagsMax == 20)
    let error = #expect(throws: LeaseBuildError.self) {
      try planner.socialPlan(
        for: T.me, options: SocialPlanOptions(notifications: [.mentions: .default], pTagsMax: 0))
    }
    #expect(error?.code == .invalidPTagsMax)
  }

  @Test func reportsWhatDoesNotFitInMaxIgnore() throws {
    let senders = (0..<3).map { _ in SecretKey.generate().publicKeyHex }
    let threads = [Self.root, String(repeating: "cd", count: 32)]
    let descriptor = T.demoDescriptor(
      T.limit("max_ignore", 2).merging(T.limit("max_authors", 2)) { $1 }.merging([
        "push_kinds": .array([9, 40002, 45001, 45003, 1].map { .integer(Int64($0)) })
      ]) { $1 })
    let plan = try SubscriptionPlanner(descriptor: descriptor).socialPlan(
      for: T.me,
      options: SocialPlanOptions(
        notifications: [.mentions: .default], mutedSenders: senders, mutedThreads: threads))
    // The self ignore and one filter of two authors fill the two slots.
    #expect(plan.subscriptions[0].ignore.count == 2)
    #expect(plan.unplacedMutedSenders == [senders[2]])
    #expect(plan.unplacedMutedThreads == threads)
  }

  @Test func refusesAMutedThreadThatIsNotAnID() {
    let error = #expect(throws: LeaseBuildError.self) {
      try SubscriptionPlanner(descriptor: Self.socialDescriptor).socialPlan(
        for: T.me, options: SocialPlanOptions(notifications: [.mentions: .default], mutedThreads: ["note1x"]))
    }
    #expect(error?.code == .invalidMutedThread)
    #expect(error?.field == "muted_threads[0]")
  }

  @Test func aSocialPlanPassesTheRelaysLeaseValidation() throws {
    let options = SocialPlanOptions(
      notifications: [.mentions: .timeSensitive, .zaps: .default, .directMessages: .default],
      mutedSenders: [Self.sender.publicKeyHex], mutedThreads: [Self.root], pTagsMax: 20)
    let plan = try SubscriptionPlanner(descriptor: Self.socialDescriptor).socialPlan(
      for: T.me, options: options)
    let json = JSONWriter.string(.array(plan.subscriptions.map(\.jsonValue)))
    let lease = try T.lease(T.withSubscriptions(json))
    #expect(T.verdict(lease, validator: T.validator(Self.socialDescriptor)) == nil)
    let opened = try T.validator(Self.socialDescriptor).open(lease, tenantOrigin: T.origin, now: T.now)
    guard case .active(_, _, _, _, let subscriptions) = opened.state else {
      Issue.record("the lease opened as a tombstone")
      return
    }
    #expect(subscriptions == plan.subscriptions)
  }
}
