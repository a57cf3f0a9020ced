import NostrEvent
import NostrJSON
import PushDescriptor

/// What a plan may add to the planner's defaults: a push class per kind of subscription, and the
/// senders the account muted (`README.md`).
///
/// Decisions where the spec is silent: a class the descriptor's `class_support` does not list for
/// `transport` falls back to `default` (so asking for `time_sensitive` mentions is safe on every
/// relay), and the plan says which class each subscription got; muted senders fill the ignore
/// slots left after the self ignore and the muted channels, `max_authors` per filter, in the
/// order given — the rest are reported in ``SubscriptionPlan/unplacedMutedSenders`` and only the
/// extension drops them (`ResolverConfiguration`'s `mutedPubkeys`).
public struct SubscriptionPlanOptions: Sendable, Hashable {
  /// The class of the mention subscription (`time_sensitive` to break through Focus).
  public var mentionClass: PushClass
  /// The class of the joined channels' subscriptions.
  public var channelClass: PushClass
  /// The class of the direct-message subscription.
  public var directMessageClass: PushClass
  /// Senders whose events never wake the device (64 hex; checked when planning).
  public var mutedSenders: [String]
  /// The transport whose `class_support` decides which classes are allowed (`apns`).
  public var transport: String

  /// Options with the given classes and muted senders (`default` classes and none by default).
  public init(
    mentionClass: PushClass = .default, channelClass: PushClass = .default,
    directMessageClass: PushClass = .default, mutedSenders: [String] = [], transport: String = "apns"
  ) {
    self.mentionClass = mentionClass
    self.channelClass = channelClass
    self.directMessageClass = directMessageClass
    self.mutedSenders = mutedSenders
    self.transport = transport
  }
}

/// A plan's subscriptions and what did not fit in them.
public struct SubscriptionPlan: Sendable, Hashable {
  /// The lease's subscriptions, mentions first.
  public let subscriptions: [LeaseSubscription]
  /// The muted senders past the descriptor's `max_ignore` (lowercase hex): the relay may still
  /// wake for them, so keep them in the extension's muted senders, which drops their messages.
  public let unplacedMutedSenders: [String]
  /// The class each asked-for class became (a class the descriptor does not allow is `default`).
  public let mentionClass: PushClass
  /// The class the channel subscriptions got.
  public let channelClass: PushClass
  /// The class the direct-message subscription got.
  public let directMessageClass: PushClass
}

extension SubscriptionPlanner {
  /// The subscriptions for one account with `options`: ``plan(for:joined:muted:mentionsOnly:directMessages:)``
  /// with a class per kind and the muted senders as `ignore` filters (`{"kinds":[…],"authors":[…]}`
  /// on every subscription but the direct-message one, whose author is a one-time key).
  ///
  /// - Throws: those of ``plan(for:joined:muted:mentionsOnly:directMessages:)``, and
  ///   `invalid_muted_sender` (field `muted_senders[i]`) for a sender that is not 64 hex.
  public func plan(
    for pubkey: String, joined: [String], muted: [String] = [], mentionsOnly: Bool = false,
    directMessages: Bool = false, options: SubscriptionPlanOptions
  ) throws(LeaseBuildError) -> SubscriptionPlan {
    var senders: [String] = []
    var seen: Set<String> = []
    for (index, text) in options.mutedSenders.enumerated() {
      guard let id = NostrID(lenient: text) else {
        throw LeaseBuildError(
          code: .invalidMutedSender, field: "muted_senders[\(index)]",
          message: "muted_senders[\(index)] is not 64 hex characters")
      }
      if seen.insert(id.hex).inserted { senders.append(id.hex) }
    }
    let allowed = allowedClasses(transport: options.transport)
    func granted(_ pushClass: PushClass) -> PushClass { allowed.contains(pushClass) ? pushClass : .default }
    let classes = (
      granted(options.mentionClass), granted(options.channelClass), granted(options.directMessageClass)
    )
    let planned = try plan(
      for: pubkey, joined: joined, muted: muted, mentionsOnly: mentionsOnly, directMessages: directMessages)

    let ignoreLimit = min(Self.maxIgnoreFilters, descriptor.limitation.maxIgnore)
    let chunk = max(1, descriptor.limitation.maxAuthors)
    var extra: [LeaseFilter] = []
    var placed = 0
    let used = planned.first?.ignore.count ?? 0
    while placed < senders.count, used + extra.count < ignoreLimit {
      let next = Array(senders[placed..<min(placed + chunk, senders.count)])
      extra.append(LeaseFilter(kinds: PushDescriptor.requiredPushKinds, authors: next))
      placed += next.count
    }
    let subscriptions = planned.map { subscription in
      let isDirect = subscription.filter.kinds == [LeaseSubscription.giftWrapKind]
      let isMention = subscription.filter.hTags == nil && !isDirect
      let pushClass = isDirect ? classes.2 : (isMention ? classes.0 : classes.1)
      return LeaseSubscription(
        filter: subscription.filter, pushClass: pushClass.rawValue,
        ignore: isDirect ? subscription.ignore : subscription.ignore + extra, pTagsMax: subscription.pTagsMax)
    }
    return SubscriptionPlan(
      subscriptions: subscriptions, unplacedMutedSenders: Array(senders[placed...]), mentionClass: classes.0,
      channelClass: classes.1, directMessageClass: classes.2)
  }

  /// The classes `class_support` lists for `transport` (`apns`, or another transport's array).
  func allowedClasses(transport: String) -> Set<PushClass> {
    if transport == "apns" { return Set(descriptor.classSupport.apns) }
    guard case .array(let values)? = descriptor.classSupport.otherTransports[transport] else { return [] }
    return Set(values.compactMap { $0.stringValue.flatMap(PushClass.init(rawValue:)) })
  }
}
