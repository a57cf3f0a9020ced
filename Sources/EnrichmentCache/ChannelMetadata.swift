/// A channel's name and type from a kind 39000 event signed by the relay key.
///
/// Paired with `Membership`: both come from the same signer, and refreshing one without the other
/// removes the older counterpart.
public struct ChannelMetadata: Sendable, Hashable {
  /// The channel id (the event's `d` tag).
  public var channelID: String
  /// The sanitised channel name, or nil when the event has none.
  public var name: String?
  /// The channel type from the `t` tag, or nil when absent or unknown.
  public var type: ChannelType?
  /// The relay key that signed the event.
  public var signer: String
  /// The event's id.
  public var eventID: String
  /// The event's `created_at`.
  public var createdAt: Int64

  /// Creates a channel metadata record.
  public init(
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
public enum ChannelType: String, Sendable, Hashable, CaseIterable {
  /// A chat stream.
  case stream
  /// A forum of threads.
  case forum
  /// A direct-message channel.
  case dm
}
