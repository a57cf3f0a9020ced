import NostrEvent

/// The events a fixture serves, kept newest first (a tie to the lower id), answering NIP-01 filters.
struct EventStore: Sendable {
  /// The `limit` applied to a filter that has none (100).
  static let defaultLimit = 100
  /// The largest `limit` honoured per filter (1000); larger values are lowered to it.
  static let maxLimit = 1000

  private var entries: [RelayFixtureData.Entry] = []
  private var ids: Set<String> = []

  /// Creates a store from `entries`; a repeated id keeps its first occurrence.
  init(_ entries: [RelayFixtureData.Entry]) {
    for entry in entries { insert(entry) }
  }

  /// Adds one event in order; an id already stored is ignored.
  mutating func insert(_ entry: RelayFixtureData.Entry) {
    guard ids.insert(entry.event.id).inserted else { return }
    let index = entries.firstIndex { Self.precedes(entry.event, $0.event) } ?? entries.count
    entries.insert(entry, at: index)
  }

  /// The JSON array answering `filters`: for each filter its newest `limit` matches, united
  /// without duplicates, newest first.
  func answer(_ filters: [Filter]) -> [UInt8] {
    var chosen = Set<Int>()
    for filter in filters {
      let limit = min(max(filter.limit ?? Self.defaultLimit, 0), Self.maxLimit)
      var taken = 0
      for (index, entry) in entries.enumerated() {
        if taken >= limit { break }
        guard filter.matches(entry.event) else { continue }
        chosen.insert(index)
        taken += 1
      }
    }
    var output: [UInt8] = [UInt8(ascii: "[")]
    for index in chosen.sorted() {
      if output.count > 1 { output.append(UInt8(ascii: ",")) }
      output.append(contentsOf: entries[index].json)
    }
    output.append(UInt8(ascii: "]"))
    return output
  }

  /// Whether `lhs` is served before `rhs`: newer first, a tie to the lower id.
  static func precedes(_ lhs: Event, _ rhs: Event) -> Bool {
    lhs.createdAt != rhs.createdAt ? lhs.createdAt > rhs.createdAt : lhs.id < rhs.id
  }
}
