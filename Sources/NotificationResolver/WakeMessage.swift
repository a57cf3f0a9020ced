import GiftWrap
import NostrEvent

/// One message a wake may present: a verified channel event, or a direct message opened from the
/// gift wrap the relay woke for. The fields every rule reads (claim key, author, time, kind, tags,
/// text) mean the same for both.
enum WakeMessage: Sendable, Hashable {
  /// A verified channel message (kind 9, 40002, 45001 or 45003).
  case channel(Event)
  /// A NIP-17 direct message and its verified gift wrap.
  case direct(DirectMessage, wrap: Event)

  /// The message id: the event's, or the rumor's (the claim key: two wraps of one rumor are one
  /// message).
  var id: String {
    switch self {
    case .channel(let event): event.id
    case .direct(let message, _): message.id
    }
  }

  /// The author: the event's pubkey, or the seal's signer.
  var pubkey: String {
    switch self {
    case .channel(let event): event.pubkey
    case .direct(let message, _): message.author
    }
  }

  /// When it was written: the event's `created_at`, or the rumor's (never the backdated wrap's).
  var createdAt: Int64 {
    switch self {
    case .channel(let event): event.createdAt
    case .direct(let message, _): message.createdAt
    }
  }

  /// The kind: the event's, or the rumor's (14 or 15).
  var kind: Int {
    switch self {
    case .channel(let event): event.kind
    case .direct(let message, _): message.kind
    }
  }

  /// The tags: the event's, or the rumor's.
  var tags: [[String]] {
    switch self {
    case .channel(let event): event.tags
    case .direct(let message, _): message.tags
    }
  }

  /// The text: the event's content, or the rumor's.
  var content: String {
    switch self {
    case .channel(let event): event.content
    case .direct(let message, _): message.content
    }
  }

  /// The event the relay matched and woke for: the channel event, or the gift wrap.
  var wokenEvent: Event {
    switch self {
    case .channel(let event): event
    case .direct(_, let wrap): wrap
    }
  }

  /// The direct message, when it is one.
  var directMessage: DirectMessage? {
    if case .direct(let message, _) = self { return message }
    return nil
  }
}
