import NostrJSON
import PushLease

/// The stored form of a lease's subscriptions: the JSON array the lease plaintext holds, written
/// by `LeaseSubscription.jsonValue` and read back only from the store's own rows.
///
/// The validator judged the plaintext before it was stored; this reader trusts that shape and
/// reports a row it cannot read as `corrupt_row`.
package enum StoredSubscriptions {
  /// The JSON text of `subscriptions`.
  package static func encode(_ subscriptions: [LeaseSubscription]) -> String {
    JSONWriter.string(.array(subscriptions.map(\.jsonValue)))
  }

  /// The subscriptions of a stored row.
  package static func decode(_ text: String) throws(PushRelayError) -> [LeaseSubscription] {
    guard let array = (try? JSONReader().read(text))?.arrayValue else { throw corrupt() }
    var result: [LeaseSubscription] = []
    for element in array {
      guard let object = element.objectValue, let filter = object["filter"].flatMap(Self.filter),
        let pushClass = object["class"]?.stringValue
      else { throw corrupt() }
      var ignore: [LeaseFilter] = []
      for value in object["ignore"]?.arrayValue ?? [] {
        guard let parsed = Self.filter(value) else { throw corrupt() }
        ignore.append(parsed)
      }
      let pTagsMax = object["suppress"]?.objectValue?["p_tags_max"]?.integerValue.flatMap { Int(exactly: $0) }
      result.append(
        LeaseSubscription(filter: filter, pushClass: pushClass, ignore: ignore, pTagsMax: pTagsMax))
    }
    return result
  }

  private static func filter(_ value: JSONValue) -> LeaseFilter? {
    guard let object = value.objectValue, let kinds = object["kinds"]?.arrayValue else { return nil }
    func strings(_ key: String) -> [String]? {
      object[key]?.arrayValue.map { $0.compactMap(\.stringValue) }
    }
    return LeaseFilter(
      kinds: kinds.compactMap { $0.integerValue.flatMap { Int(exactly: $0) } }, authors: strings("authors"),
      pTags: strings("#p"), hTags: strings("#h"), eTags: strings("#e"))
  }

  private static func corrupt() -> PushRelayError {
    PushRelayError(
      code: .corruptRow, field: "push_lease.subscriptions",
      message: "a stored subscription list cannot be read")
  }
}
