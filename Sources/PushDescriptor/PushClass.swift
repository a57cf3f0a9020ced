/// An APNs interruption class a relay can request for a push.
///
/// `class_support.apns` lists the ones a relay supports; `default` is always among them.
public enum PushClass: String, Sendable, Hashable, CaseIterable {
  /// A background push with no alert.
  case silent
  /// An ordinary alert.
  case `default`
  /// An alert that may break through Focus (`time-sensitive` interruption level).
  case timeSensitive = "time_sensitive"
  /// An alert for urgent kinds.
  case urgent
}
