/// A sender's profile as the cache keeps it: the display name and picture of a verified kind 0.
///
/// The display name is already sanitised (see `DisplayName`), so it can be shown as it is.
public struct Profile: Sendable, Hashable {
  /// The profile's author (64 lowercase hex).
  public var pubkey: String
  /// The sanitised display name, or nil when the profile names none.
  public var displayName: String?
  /// The `picture` URL, or nil when the profile has none.
  public var pictureURL: String?
  /// The kind 0 event's id.
  public var eventID: String
  /// The kind 0 event's `created_at`.
  public var createdAt: Int64

  /// Creates a profile record.
  public init(pubkey: String, displayName: String?, pictureURL: String?, eventID: String, createdAt: Int64) {
    self.pubkey = pubkey
    self.displayName = displayName
    self.pictureURL = pictureURL
    self.eventID = eventID
    self.createdAt = createdAt
  }
}
