/// The notification subtitle rule: `#<channel name>` (``NotificationStrings/channelSubtitle(_:)``) for a named stream or forum channel, nothing
/// for a direct-message channel, else the community's name when one was configured.
package enum NotificationSubtitle {
  /// The subtitle for a channel of `channelType` (`stream`, `forum`, `dm`, or unknown) named
  /// `channelName`, on a relay the user calls `community`.
  ///
  /// Pass only a name and type read from channel metadata verified against the relay key.
  package static func subtitle(
    channelName: String?, channelType: String?, community: String?, strings: NotificationStrings = .english
  ) -> String? {
    let name = channelName.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
    switch channelType {
    case "stream", "forum":
      if let name { return strings.channelSubtitle(name) }
    case "dm":
      return nil
    default:
      break
    }
    guard let community, !community.allSatisfy(\.isWhitespace) else { return nil }
    return community
  }
}
