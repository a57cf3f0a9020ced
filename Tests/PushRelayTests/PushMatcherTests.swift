import Foundation
import NostrEvent
import PushDescriptor
import PushLease
import PushRelay
import Testing

/// The five matching rules of `Docs/VendoringPushRelay.md`, each way to match and each way not to.
@Suite struct PushMatcherTests {
  static let me = Demo.account.publicKeyHex
  static let alice = Demo.alice.publicKeyHex
  static let channel = Demo.channel
  static let otherChannel = "0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"
  static let selfIgnore = LeaseFilter(kinds: [9, 40002, 45001, 45003], authors: [me])
  static let matcher = PushMatcher(pushKinds: [9, 40002, 45001, 45003, 1059])
  static let roster = TestRoster(channels: [channel: [me, alice], otherChannel: [alice]])

  static func lease(
    _ subscriptions: [LeaseSubscription], active: Bool = true, enabled: Bool = true,
    expiresAt: Int64 = Demo.now + 86_400, d: String = "d1"
  ) -> StoredLease {
    StoredLease(
      address: LeaseAddress(origin: Demo.origin, pubkey: me, d: d),
      eventID: String(repeating: "0", count: 64),
      createdAt: Demo.now - 100, expiresAt: expiresAt, keyID: Demo.keyID, generation: 3, active: active,
      endpointEnabled: enabled, appProfile: Demo.profile.id, transport: "apns", endpoint: "grant-\(d)",
      endpointHash: Hex.encode(NostrSHA256.hash(Array("grant-\(d)".utf8))), subscriptions: subscriptions,
      eventJSON: [])
  }

  static let mentions = LeaseSubscription(
    filter: LeaseFilter(kinds: [9, 40002, 45001, 45003], pTags: [me]), pushClass: "default",
    ignore: [selfIgnore],
    pTagsMax: 20)
  static let channelMessages = LeaseSubscription(
    filter: LeaseFilter(kinds: [9], hTags: [channel]), pushClass: "default", ignore: [selfIgnore],
    pTagsMax: 20)

  static func wakes(_ event: Event, _ leases: [StoredLease], now: Int64 = Demo.now) -> [WakeCandidate] {
    matcher.candidates(
      for: event, leases: leases, roster: roster, origin: Demo.origin, receivedAt: now, now: now)
  }

  @Test func wakesForAMention() {
    let event = Demo.event(tags: [["h", Self.channel], ["p", Self.me]])
    let wakes = Self.wakes(event, [Self.lease([Self.mentions])])
    #expect(wakes.count == 1)
    let wake = wakes[0]
    #expect(wake.eventID == event.id)
    #expect(wake.pushClass == "default")
    #expect(wake.channel == Self.channel)
    #expect(wake.generation == 3)
    #expect(wake.endpoint == "grant-d1")
    #expect(wake.keyID == Demo.keyID)
    #expect(wake.expiresAt == Demo.now + 3600)
  }

  @Test func wakesForAMessageInAJoinedChannelTheLeaseOwnerIsIn() {
    let event = Demo.event(tags: [["h", Self.channel]])
    let wakes = Self.wakes(event, [Self.lease([Self.channelMessages])])
    #expect(wakes.map(\.channel) == [Self.channel])
  }

  @Test func matchesAnETagFilter() {
    let root = String(repeating: "ab", count: 32)
    let thread = LeaseSubscription(
      filter: LeaseFilter(kinds: [9], authors: [Self.alice], eTags: [root]), pushClass: "default")
    #expect(
      Self.wakes(Demo.event(tags: [["h", Self.channel], ["e", root, "", "root"]]), [Self.lease([thread])])
        .count == 1)
    #expect(
      Self.wakes(
        Demo.event(tags: [["h", Self.channel], ["e", String(repeating: "cd", count: 32)]]),
        [Self.lease([thread])]
      )
      .isEmpty)
    #expect(Self.wakes(Demo.event(by: Demo.carol, tags: [["e", root]]), [Self.lease([thread])]).isEmpty)
  }

  @Test func takesTheHighestSurvivingClass() {
    let urgent = LeaseSubscription(filter: LeaseFilter(kinds: [9], pTags: [Self.me]), pushClass: "urgent")
    let silent = LeaseSubscription(
      filter: LeaseFilter(kinds: [9], hTags: [Self.channel]), pushClass: "silent")
    let sensitive = LeaseSubscription(
      filter: LeaseFilter(kinds: [9], hTags: [Self.channel]), pushClass: "time_sensitive")
    let event = Demo.event(tags: [["h", Self.channel], ["p", Self.me]])
    #expect(Self.wakes(event, [Self.lease([silent, urgent, sensitive])]).map(\.pushClass) == ["urgent"])
    let noMention = Demo.event(tags: [["h", Self.channel]])
    #expect(
      Self.wakes(noMention, [Self.lease([silent, urgent, sensitive])]).map(\.pushClass) == ["time_sensitive"])
  }

  @Test func staysQuietInAMutedChannel() {
    let muted = LeaseFilter(kinds: [9], hTags: [Self.channel])
    let mentions = LeaseSubscription(
      filter: LeaseFilter(kinds: [9], pTags: [Self.me]), pushClass: "default",
      ignore: [Self.selfIgnore, muted])
    let event = Demo.event(tags: [["h", Self.channel], ["p", Self.me]])
    #expect(Self.wakes(event, [Self.lease([mentions])]).isEmpty)
  }

  @Test func staysQuietForTheOwnersOwnEventsOnlyThroughTheIgnoreFilter() {
    let own = Demo.event(by: Demo.account, tags: [["h", Self.channel], ["p", Self.me]])
    #expect(Self.wakes(own, [Self.lease([Self.mentions, Self.channelMessages])]).isEmpty)
    let noIgnore = LeaseSubscription(
      filter: LeaseFilter(kinds: [9], hTags: [Self.channel]), pushClass: "default")
    #expect(Self.wakes(own, [Self.lease([noIgnore])]).count == 1)
  }

  @Test(arguments: [(20, true), (21, false)])
  func countsPTagsAgainstTheLimitDuplicatesIncluded(count: Int, wakes: Bool) {
    let tags =
      [["h", Self.channel], ["p", Self.me]] + Array(repeating: ["p", Self.alice], count: count - 1)
    #expect(Self.wakes(Demo.event(tags: tags), [Self.lease([Self.mentions])]).isEmpty == !wakes)
  }

  @Test(arguments: [1, 7, 30350, 40002])
  func wakesOnlyForAFilterKindInPushKinds(kind: Int) {
    let all = LeaseSubscription(
      filter: LeaseFilter(kinds: [1, 7, 30350, 9], pTags: [Self.me]), pushClass: "default")
    let matched = Self.wakes(
      Demo.event(kind: kind, tags: [["h", Self.channel], ["p", Self.me]]), [Self.lease([all])])
    #expect(matched.isEmpty)
  }

  @Test func neverMatchesALeaseEvenWithoutPushKinds() {
    let any = PushMatcher()
    let all = LeaseSubscription(filter: LeaseFilter(kinds: [30350], pTags: [Self.me]), pushClass: "default")
    let event = Demo.event(kind: 30350, tags: [["p", Self.me]])
    #expect(
      any.candidates(
        for: event, leases: [Self.lease([all])], roster: Self.roster, origin: Demo.origin,
        receivedAt: Demo.now,
        now: Demo.now
      ).isEmpty)
  }

  @Test func ignoresATombstonedADisabledAndAnExpiredLease() {
    let event = Demo.event(tags: [["h", Self.channel], ["p", Self.me]])
    #expect(Self.wakes(event, [Self.lease([Self.mentions], active: false)]).isEmpty)
    #expect(Self.wakes(event, [Self.lease([Self.mentions], enabled: false)]).isEmpty)
    #expect(Self.wakes(event, [Self.lease([Self.mentions], expiresAt: Demo.now)]).isEmpty)
    #expect(
      Self.wakes(event, [Self.lease([Self.mentions], expiresAt: Demo.now + 1)]).map(\.expiresAt) == [
        Demo.now + 1
      ])
  }

  @Test func expiresAWakeAnHourAfterItsEvent() {
    let old = Demo.event(createdAt: Demo.now - 3599, tags: [["h", Self.channel], ["p", Self.me]])
    #expect(Self.wakes(old, [Self.lease([Self.mentions])]).map(\.expiresAt) == [Demo.now + 1])
    let older = Demo.event(createdAt: Demo.now - 3600, tags: [["h", Self.channel], ["p", Self.me]])
    #expect(Self.wakes(older, [Self.lease([Self.mentions])]).isEmpty)
  }

  @Test func wakesNoOneOutsideTheChannelRoster() {
    let subscription = LeaseSubscription(
      filter: LeaseFilter(kinds: [9], pTags: [Self.me]), pushClass: "default")
    let inOther = Demo.event(tags: [["h", Self.otherChannel], ["p", Self.me]])
    #expect(Self.wakes(inOther, [Self.lease([subscription])]).isEmpty)
    let noRoster = Demo.event(tags: [["h", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"], ["p", Self.me]])
    #expect(Self.wakes(noRoster, [Self.lease([subscription])]).isEmpty)
    let firstH = Demo.event(tags: [["h", Self.otherChannel], ["h", Self.channel], ["p", Self.me]])
    #expect(Self.wakes(firstH, [Self.lease([subscription])]).isEmpty)
  }

  @Test func wakesNobodyForAMessageWithTwoHTags() {
    let both = Demo.event(tags: [["h", Self.channel], ["h", Self.channel], ["p", Self.me]])
    #expect(Self.wakes(both, [Self.lease([Self.mentions, Self.channelMessages])]).isEmpty)
    let one = Demo.event(tags: [["h", Self.channel], ["p", Self.me]])
    #expect(Self.wakes(one, [Self.lease([Self.mentions, Self.channelMessages])]).count == 1)
  }

  @Test func wakesNobodyForAMessageWithoutAnHTagThatMentionsTheOwner() {
    let bare = Demo.event(tags: [["p", Self.me]])
    #expect(Self.wakes(bare, [Self.lease([Self.mentions])]).isEmpty)
    #expect(!Self.mentions.matches(bare, owner: Self.me, roster: { Self.roster.channels[$0] }))
  }

  @Test func wakesNobodyForAChannelMessageFromASenderOutsideTheRoster() {
    // carol is in no roster: her message in the channel, mentioning the owner, wakes no one.
    let intruder = Demo.event(by: Demo.carol, tags: [["h", Self.channel], ["p", Self.me]])
    #expect(Self.wakes(intruder, [Self.lease([Self.mentions, Self.channelMessages])]).isEmpty)
    let member = Demo.event(by: Demo.alice, tags: [["h", Self.channel], ["p", Self.me]])
    #expect(Self.wakes(member, [Self.lease([Self.mentions, Self.channelMessages])]).count == 1)
  }

  @Test func agreesWithTheSubscriptionsOwnMatchingRule() {
    let events = [
      Demo.event(tags: [["h", Self.channel], ["p", Self.me]]),
      Demo.event(by: Demo.carol, tags: [["h", Self.channel], ["p", Self.me]]),
      Demo.event(tags: [["h", Self.otherChannel], ["p", Self.me]]),
      Demo.event(tags: [["p", Self.me]]),
      Demo.event(tags: [["h", Self.channel]]),
      Demo.event(by: Demo.account, tags: [["h", Self.channel]]),
    ]
    for event in events {
      for subscription in [Self.mentions, Self.channelMessages] {
        let relay = !Self.wakes(event, [Self.lease([subscription])]).isEmpty
        let shared = subscription.matches(event, owner: Self.me, roster: { Self.roster.channels[$0] })
        #expect(relay == shared)
      }
    }
  }

  @Test func expiresAGiftWrapWakeAnHourAfterItWasReceived() {
    let byP = LeaseSubscription(filter: LeaseFilter(kinds: [1059], pTags: [Self.me]), pushClass: "default")
    // A gift wrap's created_at is backdated up to two days on purpose.
    let wrap = Demo.event(kind: 1059, createdAt: Demo.now - 2 * 86_400, tags: [["p", Self.me]])
    let wakes = Self.matcher.candidates(
      for: wrap, leases: [Self.lease([byP])], roster: Self.roster, origin: Demo.origin,
      receivedAt: Demo.now - 10,
      now: Demo.now)
    #expect(wakes.map(\.expiresAt) == [Demo.now - 10 + 3600])
  }

  @Test func wakesForAGiftWrapOnlyWithAPFilterAndTheOwnersP() {
    let byP = LeaseSubscription(filter: LeaseFilter(kinds: [1059], pTags: [Self.me]), pushClass: "default")
    let byAuthor = LeaseSubscription(
      filter: LeaseFilter(kinds: [1059], authors: [Self.alice]), pushClass: "default")
    let wrap = Demo.event(kind: 1059, tags: [["p", Self.me]])
    #expect(Self.wakes(wrap, [Self.lease([byP])]).count == 1)
    #expect(Self.wakes(wrap, [Self.lease([byAuthor])]).isEmpty)
  }

  @Test func enqueuesOneWakePerEndpointAndEvent() throws {
    let path = Demo.temporaryPath()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let outbox = SQLiteWakeOutbox(database: try PushStateDatabase(path: path))
    let event = Demo.event(tags: [["h", Self.channel], ["p", Self.me]])
    let candidates = Self.wakes(event, [Self.lease([Self.mentions])])
    #expect(try outbox.enqueue(candidates + candidates, nowMilliseconds: Demo.now * 1000).count == 1)
    #expect(try outbox.enqueue(candidates, nowMilliseconds: Demo.now * 1000).isEmpty)
    let second = Self.wakes(
      Demo.event(tags: [["h", Self.channel], ["p", Self.me]], content: "again"), [Self.lease([Self.mentions])]
    )
    #expect(try outbox.enqueue(second, nowMilliseconds: Demo.now * 1000).count == 1)
    #expect(try outbox.wakes().count == 2)
  }
}

/// `LeaseIndex` meets an event with exactly the leases the linear scan would wake.
@Suite struct LeaseIndexTests {
  @Test func wakesTheSameLeasesAsTheLinearScan() {
    var random = SystemRandomNumberGenerator()
    let channels = (0..<8).map { String(format: "%08x-1111-4111-8111-%012x", $0, $0) }
    let people = (0..<12).map { _ in SecretKey.generate() }
    var leases: [StoredLease] = []
    for index in 0..<200 {
      let owner = people[index % people.count].publicKeyHex
      let channel = channels[Int.random(in: 0..<channels.count, using: &random)]
      let author = people[Int.random(in: 0..<people.count, using: &random)].publicKeyHex
      let filter: LeaseFilter =
        switch index % 4 {
        case 0: LeaseFilter(kinds: [9], pTags: [owner])
        case 1: LeaseFilter(kinds: [9], hTags: [channel])
        case 2: LeaseFilter(kinds: [9, 1059], authors: [author])
        default: LeaseFilter(kinds: [9], authors: [author], eTags: [String(repeating: "e", count: 64)])
        }
      var lease = PushMatcherTests.lease(
        [LeaseSubscription(filter: filter, pushClass: "default")], d: "d\(index)")
      lease.address.pubkey = owner
      leases.append(lease)
    }
    var members: [String: Set<String>] = [:]
    for channel in channels {
      members[channel] = Set(people.map(\.publicKeyHex).filter { _ in Bool.random() })
    }
    let roster = TestRoster(channels: members)
    var index = LeaseIndex(leases)
    let matcher = PushMatcher()
    var woken = 0
    for _ in 0..<300 {
      var tags: [[String]] = []
      if Bool.random() { tags.append(["h", channels.randomElement()!]) }
      for _ in 0..<Int.random(in: 0...2) { tags.append(["p", people.randomElement()!.publicKeyHex]) }
      if Bool.random() { tags.append(["e", String(repeating: "e", count: 64)]) }
      let event = Demo.event(kind: Bool.random() ? 9 : 1059, by: people.randomElement()!, tags: tags)
      let linear = matcher.candidates(
        for: event, leases: leases, roster: roster, origin: Demo.origin, receivedAt: Demo.now, now: Demo.now)
      let indexed = matcher.candidates(
        for: event, leases: index.leases(for: event), roster: roster, origin: Demo.origin,
        receivedAt: Demo.now, now: Demo.now)
      #expect(indexed == linear)
      woken += linear.count
    }
    #expect(woken > 0)
  }

  @Test func meetsEveryEventWithAnUnnarrowedLease() {
    let lease = PushMatcherTests.lease([
      LeaseSubscription(filter: LeaseFilter(kinds: [9]), pushClass: "default")
    ])
    var index = LeaseIndex([lease])
    #expect(index.leases(for: Demo.event()).map(\.address) == [lease.address])
  }

  @Test func replacesRemovesAndDisablesByAddress() {
    let mention = PushMatcherTests.mentions
    let first = PushMatcherTests.lease([mention], d: "a")
    let other = PushMatcherTests.lease([mention], d: "b")
    var index = LeaseIndex([first, other])
    let event = Demo.event(tags: [["h", Demo.channel], ["p", PushMatcherTests.me]])
    #expect(index.leases(for: event).map(\.address.d) == ["a", "b"])
    // A replacement at "a" narrowed on a channel no longer meets a mention outside it.
    var replaced = PushMatcherTests.lease(
      [
        LeaseSubscription(
          filter: LeaseFilter(kinds: [9], hTags: [PushMatcherTests.otherChannel]), pushClass: "default")
      ],
      d: "a")
    replaced.eventID = String(repeating: "1", count: 64)
    index.update(replaced)
    #expect(index.leases(for: event).map(\.address.d) == ["b"])
    #expect(index.count == 2)
    // A tombstone and a disabled endpoint take their address out.
    var tombstone = other
    tombstone.active = false
    index.update(tombstone)
    #expect(index.leases(for: event).isEmpty)
    var disabled = replaced
    disabled.endpointEnabled = false
    index.update(disabled)
    #expect(index.count == 0)
  }

  @Test func takesALeaseOutOnceItsExpiryComes() {
    let soon = PushMatcherTests.lease([PushMatcherTests.mentions], expiresAt: Demo.now + 10, d: "soon")
    let later = PushMatcherTests.lease([PushMatcherTests.mentions], expiresAt: Demo.now + 20, d: "later")
    var index = LeaseIndex([later, soon])
    #expect(index.removeExpired(now: Demo.now + 9).isEmpty)
    #expect(index.removeExpired(now: Demo.now + 10).map(\.d) == ["soon"])
    #expect(index.count == 1)
    // A lease replaced before its old expiry keeps the new one.
    var renewed = later
    renewed.eventID = String(repeating: "2", count: 64)
    renewed.expiresAt = Demo.now + 100
    index.update(renewed)
    #expect(index.removeExpired(now: Demo.now + 50).isEmpty)
    #expect(index.count == 1)
    #expect(index.removeExpired(now: Demo.now + 100).map(\.d) == ["later"])
  }
}
