import NostrEvent
import PushDescriptor

/// Turns an account's channels into lease subscriptions: its mentions, the channels it joined
/// in chunks, muted channels and its own events ignored, crowded mentions suppressed.
///
/// The plan uses the kinds `PushDescriptor.requiredPushKinds` and class `default`, and every
/// subscription carries every ignore filter, so a mention in a muted channel stays quiet. A plan
/// that the relay's limits cannot hold throws before anything is signed.
public struct SubscriptionPlanner: Sendable {
  /// The most `#h` values the planner puts in one filter (fewer when `max_h` is smaller).
  package static let maxChannelsPerFilter = 50
  /// The most ignore filters a plan carries (fewer when `max_ignore` is smaller), the self
  /// ignore included.
  package static let maxIgnoreFilters = 8
  /// The most subscriptions a plan holds (fewer when `max_subscriptions_per_lease` is smaller).
  package static let maxSubscriptions = 16
  /// The hellthread gate: an event with more `p` tags than this never wakes.
  package static let hellthreadPTagsMax = 20
  /// The class every planned subscription uses.
  package static let pushClass = "default"
  /// The kind of a channel message.
  package static let channelMessageKind = EventKind.chatMessage

  /// The relay's descriptor; its `limitation` sizes the plan.
  package let descriptor: PushDescriptor

  /// Creates a planner for one relay.
  public init(descriptor: PushDescriptor) {
    self.descriptor = descriptor
  }

  /// The mention subscription of a plan with no muted channels: the account's mentions wake it,
  /// its own events never do, and crowded mentions are suppressed. What the extension matches with
  /// when the app configured no subscriptions.
  package static func mentionSubscription(for pubkey: String) -> LeaseSubscription {
    LeaseSubscription(
      filter: mentionFilter(for: pubkey), pushClass: pushClass, ignore: [selfIgnore(for: pubkey)],
      pTagsMax: hellthreadPTagsMax)
  }

  /// The direct-message subscription: `{"kinds":[1059],"#p":[pubkey]}`, class `default`, with no
  /// ignore filters (a wrap's author is a one-time key; muting a sender happens after unwrapping)
  /// and no suppression.
  package static func directMessageSubscription(for pubkey: String) -> LeaseSubscription {
    LeaseSubscription(
      filter: LeaseFilter(kinds: [LeaseSubscription.giftWrapKind], pTags: [pubkey]), pushClass: pushClass)
  }

  private static func mentionFilter(for pubkey: String) -> LeaseFilter {
    LeaseFilter(kinds: PushDescriptor.requiredPushKinds, pTags: [pubkey])
  }

  private static func selfIgnore(for pubkey: String) -> LeaseFilter {
    LeaseFilter(kinds: PushDescriptor.requiredPushKinds, authors: [pubkey])
  }

  /// The subscriptions for one account.
  ///
  /// - Parameters:
  ///   - pubkey: the account's pubkey (64 lowercase hex), the lease's author.
  ///   - joined: the channel ids the account is in (lowercase UUID v4; duplicates dropped).
  ///   - muted: the channel ids whose messages must not wake; only those also joined count.
  ///   - mentionsOnly: when true, only mentions wake (no channel subscriptions).
  ///   - directMessages: when true and the descriptor's `push_kinds` holds 1059, the last
  ///     subscription is `{"kinds":[1059],"#p":[pubkey]}`, class `default`, with no ignore
  ///     filters (a wrap's author is a one-time key; muting a sender happens after unwrapping)
  ///     and no suppression; it counts toward the subscription limit.
  /// - Throws: `invalid_channel_id`, `too_many_muted_channels`, `too_many_subscriptions`.
  public func plan(
    for pubkey: String, joined: [String], muted: [String] = [], mentionsOnly: Bool = false,
    directMessages: Bool = false
  ) throws(LeaseBuildError) -> [LeaseSubscription] {
    let joinedSet = try Self.channelSet(joined, field: "joined")
    let mutedSet = try Self.channelSet(muted, field: "muted")
    let chunk = min(Self.maxChannelsPerFilter, descriptor.limitation.maxH)

    var ignore = [Self.selfIgnore(for: pubkey)]
    for channels in Self.chunks(joinedSet.intersection(mutedSet).sorted(), of: chunk) {
      ignore.append(LeaseFilter(kinds: [Self.channelMessageKind], hTags: channels))
    }
    let ignoreLimit = min(Self.maxIgnoreFilters, descriptor.limitation.maxIgnore)
    guard ignore.count <= ignoreLimit else {
      throw LeaseBuildError(
        code: .tooManyMutedChannels,
        message:
          "the muted channels need \(ignore.count) ignore filters with the self ignore; at most \(ignoreLimit) fit"
      )
    }

    func subscription(_ filter: LeaseFilter) -> LeaseSubscription {
      LeaseSubscription(
        filter: filter, pushClass: Self.pushClass, ignore: ignore, pTagsMax: Self.hellthreadPTagsMax)
    }
    var subscriptions = [subscription(Self.mentionFilter(for: pubkey))]
    if !mentionsOnly {
      for channels in Self.chunks(joinedSet.subtracting(mutedSet).sorted(), of: chunk) {
        subscriptions.append(subscription(LeaseFilter(kinds: [Self.channelMessageKind], hTags: channels)))
      }
    }
    if directMessages, descriptor.pushKinds.contains(LeaseSubscription.giftWrapKind) {
      subscriptions.append(Self.directMessageSubscription(for: pubkey))
    }
    let subscriptionLimit = min(Self.maxSubscriptions, descriptor.limitation.maxSubscriptionsPerLease)
    guard subscriptions.count <= subscriptionLimit else {
      throw LeaseBuildError(
        code: .tooManySubscriptions,
        message: "the plan needs \(subscriptions.count) subscriptions; at most \(subscriptionLimit) fit")
    }
    return subscriptions
  }

  private static func channelSet(_ ids: [String], field: String) throws(LeaseBuildError) -> Set<String> {
    for (index, id) in ids.enumerated() where !LowercaseUUID.isValidV4(id) {
      throw LeaseBuildError(
        code: .invalidChannelID, field: "\(field)[\(index)]",
        message: "\(field)[\(index)] is not a lowercase UUID v4")
    }
    return Set(ids)
  }

  private static func chunks(_ ids: [String], of size: Int) -> [[String]] {
    let size = max(1, size)
    return stride(from: 0, to: ids.count, by: size).map { Array(ids[$0..<min($0 + size, ids.count)]) }
  }
}
