/// The notification title rule: the sender's display name, else the compact npub, else
/// ``NotificationStrings/anonymousSender`` (`Someone`); never raw hex.
package enum NotificationTitle {
  /// The title for a sender with an optional cached display name and compact npub.
  ///
  /// A blank name counts as no name, so a profile with `"name":"  "` still shows the npub.
  package static func title(
    displayName: String?, compactNpub: String?, strings: NotificationStrings = .english
  ) -> String {
    if let displayName, !displayName.allSatisfy(\.isWhitespace) { return displayName }
    if let compactNpub, !compactNpub.isEmpty { return compactNpub }
    return strings.anonymousSender
  }
}
