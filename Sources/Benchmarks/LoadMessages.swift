import NostrEvent
import NostrPushTestSupport

/// The messages of a push load run and the wakes they must cause: `count` kind 9 channel messages
/// from random senders (every third also tags a random account), and for each the
/// `"<event id> <device token>"` pairs of every channel member but the sender.
///
/// Shared by the in-process run and the run through the fixture relay, so both check the same rule.
enum LoadMessages {
  static func make(
    count: Int, seed: UInt64, keys: [SecretKey], channels: [String], members: [String: Set<String>],
    tokenOf: [String: String], now: Int64
  ) throws -> (events: [Event], expected: Set<String>) {
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
