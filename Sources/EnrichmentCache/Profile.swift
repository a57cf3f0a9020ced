import NostrEvent
import NostrJSON

/// A sender's profile as the cache keeps it: the display name and picture of a verified kind 0,
/// as `EnrichmentCache.lookupProfile(account:relay:pubkey:now:)` returns it.
///
/// The display name is already sanitised and the picture URL already checked (http or https,
/// at most 2048 bytes), so an app can show both as they are.
///
/// Inside the package, `init(event:)` is the one reader of kind 0 content, with one set of
/// bounds; every way of making a profile (parsing, the memberwise initialiser, reading a row
/// back) keeps only a picture URL that `acceptedPictureURL(_:)` accepts, so no path can store or
/// show another. The display name is sanitised by `DisplayName`.
public struct Profile: Sendable, Hashable {
  /// The profile kind.
  package static let kind = EventKind.profile
  /// The largest kind 0 content parsed, in bytes (the resolver's profile response cap).
  package static let maxContentBytes = 256 * 1024
  /// The longest picture URL kept, in UTF-8 bytes; a longer one is dropped.
  package static let maxPictureURLBytes = 2048

  /// The profile's author (64 lowercase hex).
  public var pubkey: String
  /// The sanitised display name, or nil when the profile names none.
  public var displayName: String?
  /// The `picture` URL (http or https, at most 2048 UTF-8 bytes), or nil.
  public var pictureURL: String?
  /// The kind 0 event's id.
  public var eventID: String
  /// The kind 0 event's `created_at`.
  public var createdAt: Int64

  /// Creates a profile record; a `pictureURL` that ``acceptedPictureURL(_:)`` refuses is dropped.
  package init(pubkey: String, displayName: String?, pictureURL: String?, eventID: String, createdAt: Int64) {
    self.pubkey = pubkey
    self.displayName = displayName
    self.pictureURL = pictureURL.flatMap(Self.acceptedPictureURL)
    self.eventID = eventID
    self.createdAt = createdAt
  }

  /// Reads a kind 0 event's content: display name by the `display_name`-else-`name` rule,
  /// `picture` when ``acceptedPictureURL(_:)`` accepts it. The event is not verified here: the
  /// caller has verified it (the resolver) or the cache verifies it (`storeProfile(event:…)`).
  ///
  /// - Throws: `wrongKind` for another kind; `invalidField` (field `content`) for content over
  ///   ``maxContentBytes``, not JSON or not an object.
  package init(event: Event) throws(CacheError) {
    guard event.kind == Self.kind else {
      throw CacheError(
        code: .wrongKind, field: "kind", message: "expected kind \(Self.kind), got \(event.kind)")
    }
    guard event.content.utf8.count <= Self.maxContentBytes else {
      throw .invalid("content", "longer than \(Self.maxContentBytes) bytes")
    }
    let object: JSONObject
    do {
      guard let parsed = try JSONReader().read(event.content).objectValue else {
        throw CacheError.invalid("content", "not a JSON object")
      }
      object = parsed
    } catch let error as CacheError {
      throw error
    } catch {
      throw .invalid("content", "not JSON: \(error)")
    }
    self.init(
      pubkey: event.pubkey,
      displayName: DisplayName.fromProfile(
        displayName: object["display_name"]?.stringValue, name: object["name"]?.stringValue),
      pictureURL: object["picture"]?.stringValue, eventID: event.id, createdAt: event.createdAt)
  }

  /// `raw` with surrounding whitespace trimmed when it is an `http` or `https` URL of at most
  /// ``maxPictureURLBytes`` with no whitespace or control character inside; else nil.
  package static func acceptedPictureURL(_ raw: String) -> String? {
    let url = raw.trimmingWhitespace()
    guard !url.isEmpty, url.utf8.count <= maxPictureURLBytes else { return nil }
    let lower = url.prefix(8).lowercased()
    guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return nil }
    guard !url.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }) else {
      return nil
    }
    return url
  }
}

extension String {
  fileprivate func trimmingWhitespace() -> String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
      let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
    else { return "" }
    return String(scalars[first...last])
  }
}
