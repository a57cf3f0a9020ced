import NostrEvent

/// The cache's boundary check of a key or event id: a `NostrID`, or `invalid_field` naming the
/// argument.
enum HexKey {
  /// Throws `invalid_field` for `field` unless `text` is 64 lowercase hex characters.
  static func check(_ text: String, field: String) throws(CacheError) {
    guard NostrID(text) != nil else { throw .invalid(field, "must be 64 lowercase hex characters") }
  }
}
