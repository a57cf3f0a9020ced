import NostrEvent

extension LeaseSubscription {
  /// The message kinds (NIP-29 chat, threads and replies): each must carry exactly one `h` tag
  /// and is judged against that channel's roster (rule 1 of `Docs/VendoringPushRelay.md`'s matcher).
  package static let messageKinds = Set(EventKind.channelMessages)
  /// The gift-wrap kind: it wakes only a subscription whose filter has `#p` and an owner its `p`
  /// names.
  package static let giftWrapKind = EventKind.giftWrap

  /// Whether `event` wakes the lease owner `owner` through this subscription: the one matching
  /// rule that the relay's matcher and the extension's resolver share, so they never disagree.
  ///
  /// Rule 1: a message kind has exactly one `h` tag (none, or two or more: no wake), the channel's
  /// members (`roster(channel)`, nil: the channel has no roster, so no members) include `owner`,
  /// and, when the channel has a roster, the event's author. Rule 2: the filter matches (NIP-01
  /// over `kinds`, `authors`, `#p`, `#h`, `#e`), no ignore filter matches, the event has at most
  /// `pTagsMax` `p` tags (duplicates count), and a gift wrap (kind 1059) needs a `#p` filter and a
  /// `p` tag equal to `owner`.
  public func matches(_ event: Event, owner: String, roster: (_ channel: String) -> Set<String>?) -> Bool {
    switch Self.channelRule(event) {
    case .refused: return false
    case .channel(let channel):
      guard Self.admits(event, owner: owner, members: roster(channel)) else { return false }
    case .none: break
    }
    return survives(event, owner: owner)
  }

  /// What rule 1 says of an event before any lease is met.
  package enum ChannelRule: Sendable, Hashable {
    /// Not a message kind: rule 1 does not apply.
    case none
    /// A message of exactly one channel.
    case channel(String)
    /// A message with no `h` tag, or two or more: it wakes nobody.
    case refused
  }

  /// Rule 1's reading of `event`: not a message, a message of one channel, or a refused message.
  package static func channelRule(_ event: Event) -> ChannelRule {
    guard messageKinds.contains(event.kind) else { return .none }
    var channel: String?
    for tag in event.tags where tag.first == "h" {
      guard channel == nil, tag.count >= 2 else { return .refused }
      channel = tag[1]
    }
    return channel.map(ChannelRule.channel) ?? .refused
  }

  /// Rule 1 for one owner: `members` (nil: no roster, so no members) must hold `owner` and the
  /// event's author.
  package static func admits(_ event: Event, owner: String, members: Set<String>?) -> Bool {
    guard let members else { return false }
    return members.contains(owner) && members.contains(event.pubkey)
  }

  /// Rule 2 for this subscription: filter, ignore filters, the `p` ceiling and the gift-wrap rule.
  package func survives(_ event: Event, owner: String) -> Bool {
    guard filter.matches(event) else { return false }
    for quiet in ignore where quiet.matches(event) { return false }
    if let pTagsMax {
      var count = 0
      for tag in event.tags where tag.first == "p" {
        count += 1
        if count > pTagsMax { return false }
      }
    }
    if event.kind == Self.giftWrapKind {
      guard filter.pTags != nil,
        event.tags.contains(where: { $0.count >= 2 && $0[0] == "p" && $0[1] == owner })
      else { return false }
    }
    return true
  }
}

extension LeaseFilter {
  /// NIP-01 matching over the members a lease filter has: `kinds`, `authors`, and for `#p`, `#h`,
  /// `#e` some tag of that name whose second element is in the set.
  package func matches(_ event: Event) -> Bool {
    guard kinds.contains(event.kind) else { return false }
    if let authors, !authors.contains(event.pubkey) { return false }
    if let pTags, !Self.hasTag("p", in: pTags, event) { return false }
    if let hTags, !Self.hasTag("h", in: hTags, event) { return false }
    if let eTags, !Self.hasTag("e", in: eTags, event) { return false }
    return true
  }

  private static func hasTag(_ name: String, in values: [String], _ event: Event) -> Bool {
    event.tags.contains { tag in tag.count >= 2 && tag[0] == name && values.contains(tag[1]) }
  }
}
