import Foundation
import NostrEvent
import NostrPushTestSupport
import NostrPushTesting
import PushLease
import PushRelay

/// The accounts of a push load run: `accounts` fresh keys, `accounts / 2` channels (ids of the
/// form `xxxxxxxx-<group>-4<group'>-8<group'>-…`), account `i` in channel `i mod channels`, and
/// device token `i + 1` as 64 hex. Shared by the in-process run and the run through the fixture.
struct LoadPopulation {
  let channels: [String]
  let keys: [SecretKey]
  let members: [String: Set<String>]
  let tokenOf: [String: String]

  init(accounts: Int, channelGroup: Int) {
    let digit = String(channelGroup)
    let group = String(repeating: digit, count: 4)
    let tail = String(repeating: digit, count: 3)
    channels = (0..<(accounts / 2)).map {
      String(format: "%08x-\(group)-4\(tail)-8\(tail)-%012x", $0, $0)
    }
    keys = (0..<accounts).map { _ in SecretKey.generate() }
    var members: [String: Set<String>] = [:]
    var tokenOf: [String: String] = [:]
    for (index, key) in keys.enumerated() {
      members[channels[index % channels.count], default: []].insert(key.publicKeyHex)
      tokenOf[key.publicKeyHex] = Self.token(index)
    }
    self.members = members
    self.tokenOf = tokenOf
  }

  /// Account `index`'s device token.
  static func token(_ index: Int) -> String { String(format: "%064x", index + 1) }

  /// Account `index`'s lease: a grant from `gateway` for its token, mentions and its channel.
  func lease(
    _ index: Int, gateway: GatewayFixture, relayKey: SecretKey, planner: SubscriptionPlanner,
    builder: LeaseBuilder, now: Int64
  ) throws -> Event {
    let key = keys[index]
    let grant = try gateway.issueGrant(relayPubkey: relayKey.publicKeyHex, deviceToken: Self.token(index))
      .grant
    let plan = try planner.plan(for: key.publicKeyHex, joined: [channels[index % channels.count]])
    return try builder.active(
      endpoint: grant, subscriptions: plan, generation: 1, createdAt: now, installationID: .generate(),
      now: now,
      signer: key)
  }
}

/// The messages of a push load run and the wakes they must cause: `count` kind 9 channel messages
/// from random senders (every third also tags a random account), and for each the
/// `"<event id> <device token>"` pairs of every channel member but the sender.
///
/// Shared by the in-process run and the run through the fixture relay, so both check the same rule.
enum LoadMessages {
  static func make(count: Int, seed: UInt64, population: LoadPopulation, now: Int64) throws -> (
    events: [Event], expected: Set<String>
  ) {
    let (keys, channels, members, tokenOf) = (
      population.keys, population.channels, population.members, population.tokenOf
    )
    var random = SplitMix64(seed: seed)
    var events: [Event] = []
    var expected: Set<String> = []
    for index in 0..<count {
      let sender = keys[Int(random.next() % UInt64(keys.count))]
      let channel = channels[Int(random.next() % UInt64(channels.count))]
      var tags = [["h", channel]]
      if index % 3 == 0 { tags.append(["p", keys[Int(random.next() % UInt64(keys.count))].publicKeyHex]) }
      let event = try UnsignedEvent(
        pubkey: sender.publicKeyHex, createdAt: now, kind: 9, tags: tags, content: "load \(index)"
      ).signed(with: sender)
      events.append(event)
      for member in members[channel] ?? [] where member != sender.publicKeyHex {
        if let token = tokenOf[member] { expected.insert(event.id + " " + token) }
      }
    }
    return (events, expected)
  }
}

extension LoadMessages {
  /// Checks the load run's rule on what the gateway recorded: every expected wake delivered
  /// exactly once, nothing else, each on its first attempt; returns the delivered pairs.
  static func checkDeliveries(_ deliveries: [GatewayDelivery], wakes: [Wake], expected: Set<String>)
    -> [String]
  {
    let eventOf = Dictionary(uniqueKeysWithValues: wakes.map { ($0.requestID, $0.candidate.eventID) })
    let delivered = deliveries.map { eventOf[$0.requestID]! + " " + $0.deviceToken }
    precondition(Set(delivered).count == delivered.count, "a wake was delivered twice")
    precondition(Set(delivered) == expected, "delivered \(delivered.count) wakes, expected \(expected.count)")
    precondition(
      wakes.allSatisfy { $0.state == .delivered && $0.attempts == 1 }, "a wake did not deliver first time")
    return delivered
  }

  /// Checks the rule (`checkDeliveries`) and words what was checked, as both runs' notes go on
  /// after their title: `<n> messages against <n> leases: <n> wakes expected, <n> delivered once
  /// each, none unexpected; enroll <rate> leases/s`; and how many were delivered.
  static func checkedSummary(
    _ deliveries: [GatewayDelivery], wakes: [Wake], expected: Set<String>, messages: Int, accounts: Int,
    enrollSeconds: Double
  ) -> (text: String, delivered: Int) {
    let delivered = checkDeliveries(deliveries, wakes: wakes, expected: expected)
    let text = String(
      format:
        "%d messages against %d leases: %d wakes expected, %d delivered once each, none unexpected; enroll %.0f leases/s",
      messages, accounts, expected.count, delivered.count, Double(accounts) / enrollSeconds)
    return (text, delivered.count)
  }
}
