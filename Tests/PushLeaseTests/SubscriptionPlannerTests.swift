import NostrJSON
import PushDescriptor
import Testing

@testable import PushLease

/// The planner: mentions, joined channels in chunks, muted channels and the account's own events
/// ignored, and the limits that make a plan throw before anything is signed.
@Suite struct SubscriptionPlannerTests {
  typealias T = LeaseTestSupport

  static let kinds = PushDescriptor.requiredPushKinds

  static func planner() -> SubscriptionPlanner {
    SubscriptionPlanner(descriptor: T.exampleDescriptor())
  }

  @Test func splitsFiftyOneChannelsIntoTwoChannelSubscriptions() throws {
    let channels = T.channels(51)
    let plan = try Self.planner().plan(for: T.me, joined: channels.reversed())
    #expect(plan.count == 3)
    #expect(plan[0].filter == LeaseFilter(kinds: Self.kinds, pTags: [T.me]))
    #expect(plan[1].filter == LeaseFilter(kinds: [9], hTags: Array(channels[0..<50])))
    #expect(plan[2].filter == LeaseFilter(kinds: [9], hTags: [channels[50]]))
    for subscription in plan {
      #expect(subscription.pushClass == "default")
      #expect(subscription.pTagsMax == 20)
      #expect(subscription.ignore == [LeaseFilter(kinds: Self.kinds, authors: [T.me])])
    }
  }

  @Test func chunksByMaxHWhenItIsBelowFifty() throws {
    let plan = try SubscriptionPlanner(descriptor: T.demoDescriptor()).plan(for: T.me, joined: T.channels(51))
    #expect(plan.map { $0.filter.hTags?.count ?? 0 } == [0, 32, 19])
  }

  @Test func ignoresMutedJoinedChannelsInEverySubscription() throws {
    let joined = T.channels(4)
    let plan = try Self.planner().plan(for: T.me, joined: joined, muted: [joined[2], joined[0], T.channelA])
    let ignore = [
      LeaseFilter(kinds: Self.kinds, authors: [T.me]),
      LeaseFilter(kinds: [9], hTags: [joined[0], joined[2]]),
    ]
    #expect(plan.count == 2)
    #expect(plan[1].filter.hTags == [joined[1], joined[3]])
    #expect(plan.allSatisfy { $0.ignore == ignore })
  }

  @Test func dropsDuplicateChannels() throws {
    let plan = try Self.planner().plan(for: T.me, joined: [T.channelB, T.channelA, T.channelB, T.channelA])
    #expect(plan[1].filter.hTags == [T.channelA, T.channelB])
  }

  @Test func plansOnlyMentionsWhenAsked() throws {
    let plan = try Self.planner().plan(for: T.me, joined: T.channels(3), mentionsOnly: true)
    #expect(
      plan == [
        LeaseSubscription(
          filter: LeaseFilter(kinds: Self.kinds, pTags: [T.me]), pushClass: "default",
          ignore: [LeaseFilter(kinds: Self.kinds, authors: [T.me])], pTagsMax: 20)
      ])
  }

  @Test(arguments: [
    "general", "3F2A1B4C-5D6E-4F70-8A9B-0C1D2E3F4A5B", "3f2a1b4c-5d6e-1f70-8a9b-0c1d2e3f4a5b", "",
  ])
  func refusesAChannelIDThatIsNotALowercaseUUIDv4(_ id: String) throws {
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.planner().plan(for: T.me, joined: [T.channelA], muted: [id])
    }
    #expect(error?.code == .invalidChannelID)
    #expect(error?.field == "muted[0]")
  }

  @Test func throwsWhenMutedChannelsOverflowMaxIgnore() throws {
    let joined = T.channels(51)
    let descriptor = T.exampleDescriptor(T.limit("max_ignore", 2))
    let planner = SubscriptionPlanner(descriptor: descriptor)
    _ = try planner.plan(for: T.me, joined: joined, muted: Array(joined[0..<50]))
    let error = #expect(throws: LeaseBuildError.self) {
      try planner.plan(for: T.me, joined: joined, muted: joined)
    }
    #expect(error?.code == .tooManyMutedChannels)
  }

  @Test func capsIgnoresAtEightWhateverMaxIgnoreSays() throws {
    let joined = T.channels(351)
    _ = try Self.planner().plan(for: T.me, joined: joined, muted: Array(joined[0..<350]), mentionsOnly: true)
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.planner().plan(for: T.me, joined: joined, muted: joined, mentionsOnly: true)
    }
    #expect(error?.code == .tooManyMutedChannels)
  }

  @Test func throwsWhenThePlanIsOverMaxSubscriptionsPerLease() throws {
    _ = try Self.planner().plan(for: T.me, joined: T.channels(150))
    let error = #expect(throws: LeaseBuildError.self) {
      try Self.planner().plan(for: T.me, joined: T.channels(151))
    }
    #expect(error?.code == .tooManySubscriptions)
  }

  @Test func capsSubscriptionsAtSixteenWhateverTheRelaySays() throws {
    let planner = SubscriptionPlanner(
      descriptor: T.exampleDescriptor(T.limit("max_subscriptions_per_lease", 64)))
    _ = try planner.plan(for: T.me, joined: T.channels(750))
    let error = #expect(throws: LeaseBuildError.self) { try planner.plan(for: T.me, joined: T.channels(751)) }
    #expect(error?.code == .tooManySubscriptions)
  }

  @Test func plansWhatTheBuilderAccepts() throws {
    let joined = T.channels(90)
    let descriptor = T.demoDescriptor(T.limit("max_plaintext_len", 16_384))
    let plan = try SubscriptionPlanner(descriptor: descriptor).plan(
      for: T.me, joined: joined, muted: [joined[5]])
    let event = try LeaseBuilderTests.build(LeaseBuilderTests.builder(descriptor), subscriptions: plan)
    #expect(T.verdict(event, validator: T.validator(descriptor)) == nil)
  }

  /// The example descriptor with 1059 in `push_kinds`, and any other changes.
  static func giftWrapDescriptor(_ changes: [String: JSONValue] = [:]) -> PushDescriptor {
    var changes = changes
    changes["push_kinds"] = .array((kinds + [1111, 1059]).map { .integer(Int64($0)) })
    return T.exampleDescriptor(changes)
  }

  @Test func addsTheDirectMessageSubscriptionLastWithoutIgnores() throws {
    let planner = SubscriptionPlanner(descriptor: Self.giftWrapDescriptor())
    let plan = try planner.plan(
      for: T.me, joined: [T.channelA, T.channelB], muted: [T.channelB], directMessages: true)
    #expect(plan.count == 3)
    #expect(
      Array(plan[0..<2])
        == (try planner.plan(for: T.me, joined: [T.channelA, T.channelB], muted: [T.channelB])))
    #expect(
      plan[2] == LeaseSubscription(filter: LeaseFilter(kinds: [1059], pTags: [T.me]), pushClass: "default"))
    #expect(
      JSONWriter.string(plan[2].jsonValue)
        == ##"{"filter":{"kinds":[1059],"#p":["\##(T.me)"]},"class":"default"}"##)
  }

  @Test func leavesDirectMessagesOutWhenTheRelayDoesNotPushGiftWraps() throws {
    let plan = try Self.planner().plan(for: T.me, joined: [T.channelA], directMessages: true)
    #expect(plan == (try Self.planner().plan(for: T.me, joined: [T.channelA])))
    #expect(!plan.contains { $0.filter.kinds == [1059] })
  }

  @Test func leavesDirectMessagesOutUnlessAsked() throws {
    let plan = try SubscriptionPlanner(descriptor: Self.giftWrapDescriptor()).plan(
      for: T.me, joined: [T.channelA])
    #expect(plan.count == 2)
    #expect(!plan.contains { $0.filter.kinds == [1059] })
  }

  @Test func countsTheDirectMessageSubscriptionTowardTheLimit() throws {
    let planner = SubscriptionPlanner(descriptor: Self.giftWrapDescriptor())
    _ = try planner.plan(for: T.me, joined: T.channels(150))
    _ = try planner.plan(for: T.me, joined: T.channels(100), directMessages: true)
    let error = #expect(throws: LeaseBuildError.self) {
      try planner.plan(for: T.me, joined: T.channels(150), directMessages: true)
    }
    #expect(error?.code == .tooManySubscriptions)
  }

  @Test func plansADirectMessageSubscriptionTheValidatorAccepts() throws {
    var push = T.pushObject("Fixtures/demo/nip11.json").objectValue!
    push["push_kinds"] = .array((Self.kinds + [1059]).map { .integer(Int64($0)) })
    let descriptor = try PushDescriptor(strictPush: .object(push))
    let plan = try SubscriptionPlanner(descriptor: descriptor).plan(
      for: T.me, joined: [T.channelA], directMessages: true)
    #expect(plan.last?.filter.kinds == [1059])
    let event = try LeaseBuilderTests.build(LeaseBuilderTests.builder(descriptor), subscriptions: plan)
    #expect(T.verdict(event, validator: T.validator(descriptor)) == nil)
  }
}
