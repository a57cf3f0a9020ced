import NostrJSON

/// Reads a fixture file that is one JSON array of entries (`faults.json`, a gateway script),
/// naming each entry `field[i]` in its errors.
enum FixtureJSONArray {
  /// The entries of `bytes`, each read by `entry` with its field; `invalid_data` at `field` when
  /// the bytes are not JSON (within `maxDepth`) or not an array.
  static func parse<Entry>(
    _ bytes: [UInt8], field: String, maxDepth: Int = JSONReader.defaultMaxDepth,
    entry: (_ value: JSONValue, _ field: String) throws(RelayFixtureError) -> Entry
  ) throws(RelayFixtureError) -> [Entry] {
    let value: JSONValue
    do {
      value = try JSONReader(maxDepth: maxDepth).read(bytes)
    } catch {
      throw RelayFixtureError(code: .invalidData, field: field, message: "not JSON: \(error)")
    }
    guard let array = value.arrayValue else {
      throw RelayFixtureError(code: .invalidData, field: field, message: "must be a JSON array")
    }
    var entries: [Entry] = []
    entries.reserveCapacity(array.count)
    for (index, element) in array.enumerated() {
      entries.append(try entry(element, "\(field)[\(index)]"))
    }
    return entries
  }
}
