import NostrEvent

/// Where tapping the notification leads: the message, its channel and, for a thread reply, the
/// thread's parent message.
///
/// The rules read the tags exactly as the relay's ingest reads them, so the app opens the same
/// channel and thread the relay filed the message under.
public struct MessageTarget: Sendable, Hashable, Codable {
  /// The message's event id (64 lowercase hex).
  public var eventID: String
  /// The first `h` tag's value when it is a lowercase UUID v4, else nil.
  public var channelID: String?
  /// The direct parent of a thread reply (64 lowercase hex), nil for a channel-level message or a
  /// broadcast reply.
  public var threadID: String?
  /// For a direct message, the conversation's participants (sorted pubkeys, 64 lowercase hex);
  /// nil for a channel message.
  public var conversation: [String]?

  /// Creates a target from its parts.
  package init(eventID: String, channelID: String?, threadID: String?, conversation: [String]? = nil) {
    self.eventID = eventID
    self.channelID = channelID
    self.threadID = threadID
    self.conversation = conversation
  }

  /// Routes a message from its id and tags.
  ///
  /// Use it on a verified event; nothing in the tags is trusted beyond these rules.
  package init(eventID: String, tags: [[String]]) {
    self.eventID = eventID
    self.channelID = Self.channelID(in: tags)
    self.threadID = Self.threadID(in: tags)
  }

  /// The first `h` tag's value when it is a lowercase UUID v4; a later `h` tag is never consulted.
  package static func channelID(in tags: [[String]]) -> String? {
    guard let tag = tags.first(where: { $0.count >= 2 && $0[0] == "h" }) else { return nil }
    return isLowercaseUUIDv4(tag[1]) ? tag[1] : nil
  }

  /// The thread parent: the last valid `reply`-marked `e` tag, else the last valid `root`-marked
  /// one, and nil for a broadcast reply (`["broadcast","1"]`).
  package static func threadID(in tags: [[String]]) -> String? {
    if tags.contains(where: { $0.count >= 2 && $0[0] == "broadcast" && $0[1] == "1" }) { return nil }
    if let reply = lastMarkedEventID(in: tags, marker: "reply") { return reply }
    return lastMarkedEventID(in: tags, marker: "root")
  }

  /// Whether `text` is `xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx` in lowercase hex
  /// (`LowercaseUUID.isValidV4`, the one implementation of the `h` grammar).
  package static func isLowercaseUUIDv4(_ text: String) -> Bool {
    LowercaseUUID.isValidV4(text)
  }

  private static func lastMarkedEventID(in tags: [[String]], marker: String) -> String? {
    for tag in tags.reversed() where tag.count >= 4 && tag[0] == "e" && tag[3] == marker {
      if let id = NostrID(lenient: tag[1]) { return id.hex }
    }
    return nil
  }
}
