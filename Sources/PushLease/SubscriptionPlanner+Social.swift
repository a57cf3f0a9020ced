import NostrEvent
import PushDescriptor

extension SubscriptionPlanner {
  /// The subscriptions of a social app's account: each asked-for notification (``SocialPlanOptions``)
  /// as a `#p` = account filter, those of one class together; the account itself, the muted senders
  /// (`authors`) and the muted threads (`#e` of the root) as `ignore` filters over the social kinds
  /// on every subscription but the direct-message one (a wrap's author is a one-time key); the
  /// hellthread gate when asked.
  ///
  /// - Throws: `kind_not_offered` (field `kinds`) when the descriptor's `push_kinds` does not list
  ///   a kind asked for, naming it; `invalid_muted_sender` (`muted_senders[i]`),
  ///   `invalid_muted_thread` (`muted_threads[i]`) for a value that is not 64 hex;
  ///   `invalid_p_tags_max` for a gate below 1; `too_many_subscriptions`.
  public func socialPlan(for pubkey: String, options: SocialPlanOptions) throws(LeaseBuildError) -> SocialPlan
  {
    let senders = try Self.keys(options.mutedSenders, field: "muted_senders", code: .invalidMutedSender)
    let threads = try Self.keys(options.mutedThreads, field: "muted_threads", code: .invalidMutedThread)
    if let gate = options.pTagsMax, gate < 1 {
      throw LeaseBuildError(
        code: .invalidPTagsMax, field: "p_tags_max", message: "p_tags_max must be at least 1")
    }
    let asked = SocialNotificationKind.allCases.filter { options.notifications[$0] != nil }
    for notification in asked {
      for kind in notification.kinds where !descriptor.pushKinds.contains(kind) {
        let name = EventKind.name(of: kind) ?? "kind"
        throw LeaseBuildError(
          code: .kindNotOffered, field: "kinds",
          message:
            "the relay's push_kinds do not list kind \(kind) (\(name)), needed for \(notification.rawValue)")
      }
    }
    let allowed = allowedClasses(transport: options.transport)
    var classes: [SocialNotificationKind: PushClass] = [:]
    for notification in asked {
      let wanted = options.notifications[notification] ?? .default
      classes[notification] = allowed.contains(wanted) ? wanted : .default
    }

    let social = asked.filter { $0 != .directMessages }
    let socialKinds = social.flatMap(\.kinds).sorted()
    let ignoreLimit = min(Self.maxIgnoreFilters, descriptor.limitation.maxIgnore)
    var ignore = [LeaseFilter(kinds: socialKinds, authors: [pubkey])]
    var placedSenders = 0
    let authorChunk = max(1, descriptor.limitation.maxAuthors)
    while placedSenders < senders.count, ignore.count < ignoreLimit {
      let next = Array(senders[placedSenders..<min(placedSenders + authorChunk, senders.count)])
      ignore.append(LeaseFilter(kinds: socialKinds, authors: next))
      placedSenders += next.count
    }
    var placedThreads = 0
    let valueChunk = max(1, descriptor.limitation.maxTagValues)
    while placedThreads < threads.count, ignore.count < ignoreLimit {
      let next = Array(threads[placedThreads..<min(placedThreads + valueChunk, threads.count)])
      ignore.append(LeaseFilter(kinds: socialKinds, eTags: next))
      placedThreads += next.count
    }

    var subscriptions: [LeaseSubscription] = []
    for pushClass in PushClass.allCases {
      let kinds = social.filter { classes[$0] == pushClass }.flatMap(\.kinds).sorted()
      guard !kinds.isEmpty else { continue }
      subscriptions.append(
        LeaseSubscription(
          filter: LeaseFilter(kinds: kinds, pTags: [pubkey]), pushClass: pushClass.rawValue, ignore: ignore,
          pTagsMax: options.pTagsMax))
    }
    if let direct = classes[.directMessages] {
      subscriptions.append(
        LeaseSubscription(
          filter: LeaseFilter(kinds: SocialNotificationKind.directMessages.kinds, pTags: [pubkey]),
          pushClass: direct.rawValue))
    }
    let subscriptionLimit = min(Self.maxSubscriptions, descriptor.limitation.maxSubscriptionsPerLease)
    guard subscriptions.count <= subscriptionLimit else {
      throw LeaseBuildError(
        code: .tooManySubscriptions,
        message: "the plan needs \(subscriptions.count) subscriptions; at most \(subscriptionLimit) fit")
    }
    return SocialPlan(
      subscriptions: subscriptions, classes: classes, unplacedMutedSenders: Array(senders[placedSenders...]),
      unplacedMutedThreads: Array(threads[placedThreads...]))
  }

  /// `values` as lowercase hex keys or ids, duplicates dropped in order; the first that is not
  /// 64 hex throws `code` naming `field[i]`.
  private static func keys(
    _ values: [String], field: String, code: ErrorCode<LeaseBuildErrorDomain>
  ) throws(LeaseBuildError) -> [String] {
    var kept: [String] = []
    var seen: Set<String> = []
    for (index, text) in values.enumerated() {
      guard let id = NostrID(lenient: text) else {
        throw LeaseBuildError(
          code: code, field: "\(field)[\(index)]", message: "\(field)[\(index)] is not 64 hex characters")
      }
      if seen.insert(id.hex).inserted { kept.append(id.hex) }
    }
    return kept
  }
}
