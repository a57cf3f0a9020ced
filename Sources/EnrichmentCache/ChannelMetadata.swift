/// A channel's name and type from a kind 39000 event signed by the relay key.
///
/// Paired with `Membership`: both come from the same signer, and refreshing one without the other
/// removes the older counterpart.
package struct ChannelMetadata: Sendable, Hashable {
  /// The channel id (the event's `d` tag).
  package var channelID: String
  /// The sanitised channel name, or nil when the event has none.
  package var name: String?
  /// The channel type from the `t` tag, or nil when absent or unknown.
  package var type: ChannelType?
  /// The relay key that signed the event.
  package var signer: String
  /// The event's id.
  package var eventID: String
  /// The event's `created_at`.
  package var createdAt: Int64

  /// Creates a channel metadata record.
  package init(
    channelID: String, name: String?, type: ChannelType?, signer: String, eventID: String, createdAt: Int64
  ) {
    self.channelID = channelID
    self.name = name
    self.type = type
    self.signer = signer
    self.eventID = eventID
    self.createdAt = createdAt
  }
}

/// The kind of a channel, from the metadata's `t` tag.
package enum ChannelType: String, Sendable, Hashable, CaseIterable {
  /// A chat stream.
  case stream
  /// A forum of threads.
  case forum
  /// A direct-message channel.
  case dm
}
