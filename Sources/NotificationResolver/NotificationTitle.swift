/// The notification title rule: the sender's display name, else the compact npub, else `Someone`;
/// never raw hex.
package enum NotificationTitle {
  /// The title shown when the sender has neither a display name nor a displayable key.
  package static let anonymous = "Someone"

  /// The title for a sender with an optional cached display name and compact npub.
  ///
  /// A blank name counts as no name, so a profile with `"name":"  "` still shows the npub.
  package static func title(displayName: String?, compactNpub: String?) -> String {
    if let displayName, !displayName.allSatisfy(\.isWhitespace) { return displayName }
    if let compactNpub, !compactNpub.isEmpty { return compactNpub }
    return anonymous
  }
}
