// Compiled only where the shell is (see NostrNotificationService.swift).
#if os(iOS) || os(macOS) || os(visionOS)
import Foundation
import NotificationResolver

extension NotificationStrings {
  /// The strings `bundle`'s `table` (`Localizable.strings` by default) gives for the keys
  /// present there (``NotificationStrings/Key/all``), English for the rest; an entry whose `%`
  /// sequences do not fit its key is skipped, so a broken translation never costs a notification.
  ///
  /// `NostrNotificationService` reads the extension's own bundle (`Bundle.main` in an extension):
  /// add the app's `Localizable.strings` (or a string catalog) to the extension target too.
  public init(bundle: Bundle, table: String? = nil) {
    let missing = "\u{0}nostr_push.missing"
    var found: [String: String] = [:]
    for key in Key.all {
      let text = bundle.localizedString(forKey: key.rawValue, value: missing, table: table)
      if text != missing { found[key.rawValue] = text }
    }
    self.init(validEntriesOf: found)
  }
}
#endif
