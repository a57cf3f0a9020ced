import NostrEvent

/// The events a fixture serves, kept newest first (a tie to the lower id), answering NIP-01 filters.
struct EventStore: Sendable {
  /// The `limit` applied to a filter that has none (100).
  static let defaultLimit = 100
  /// The largest `limit` honoured per filter (1000); larger values are lowered to it.
  static let maxLimit = 1000

  private var entries: [RelayFixtureData.Entry] = []
  private var ids: Set<String> = []
  /// The current event per (kind, pubkey, first `d`) of kinds 30000–39999, so the push roster
  /// finds a channel's member list without scanning every event.
  private var addressable: [String: Event] = [:]

  /// Creates a store from `entries`; a repeated id keeps its first occurrence.
  init(_ entries: [RelayFixtureData.Entry]) {
    for entry in entries { insert(entry) }
  }

  /// Adds one event in order; an id already stored is ignored.
  mutating func insert(_ entry: RelayFixtureData.Entry) {
    guard ids.insert(entry.event.id).inserted else { return }
    if (30000..<40000).contains(entry.event.kind) {
      let key = Self.addressKey(
        kind: entry.event.kind, pubkey: entry.event.pubkey, d: Self.firstD(of: entry.event))
      if addressable[key].map({ entry.event.supersedes($0) }) ?? true { addressable[key] = entry.event }
    }
    let index = entries.firstIndex { entry.event.supersedes($0.event) } ?? entries.count
    entries.insert(entry, at: index)
  }

  /// The JSON array answering `filters`: for each filter its newest `limit` matches, united
  /// without duplicates, newest first; events `visible` refuses are skipped before `limit` counts.
  func answer(_ filters: [Filter], visible: (Event) -> Bool = { _ in true }) -> [UInt8] {
    var output: [UInt8] = [UInt8(ascii: "[")]
    for entry in matches(filters, visible: visible) {
      if output.count > 1 { output.append(UInt8(ascii: ",")) }
      output.append(contentsOf: entry.json)
    }
    output.append(UInt8(ascii: "]"))
    return output
  }

  /// The entries answering `filters`, newest first (as `answer`).
  func matches(_ filters: [Filter], visible: (Event) -> Bool = { _ in true }) -> [RelayFixtureData.Entry] {
    var chosen = Set<Int>()
    for filter in filters {
      let limit = min(max(filter.limit ?? Self.defaultLimit, 0), Self.maxLimit)
      var taken = 0
      for (index, entry) in entries.enumerated() {
        if taken >= limit { break }
        guard filter.matches(entry.event), visible(entry.event) else { continue }
        chosen.insert(index)
        taken += 1
      }
    }
    return chosen.sorted().map { entries[$0] }
  }

  /// The current (newest, a tie to the lower id) addressable event of `kind` by `pubkey` with
  /// first `d` tag `d`.
  func current(kind: Int, pubkey: String, d: String) -> Event? {
    addressable[Self.addressKey(kind: kind, pubkey: pubkey, d: d)]
  }

  private static func addressKey(kind: Int, pubkey: String, d: String) -> String {
    "\(kind):\(pubkey):\(d)"
  }

  private static func firstD(of event: Event) -> String {
    event.tags.first { $0.first == "d" }.map { $0.count > 1 ? $0[1] : "" } ?? ""
  }

  /// Whether an event with `id` is stored.
  func contains(id: String) -> Bool { ids.contains(id) }

  /// Stores `entry` under NIP-01's replacement rules: kinds 0, 3 and 10000–19999 keep one event
  /// per (pubkey, kind), 30000–39999 one per (pubkey, kind, first `d`); false (nothing changed)
  /// when the stored one is not older (later `created_at`, a tie to the lower id).
  mutating func store(_ entry: RelayFixtureData.Entry) -> Bool {
    let event = entry.event
    let replaceable = EventKind.isReplaceable(event.kind)
    let addressable = (30000..<40000).contains(event.kind)
    if replaceable || addressable {
      let tag = event.tags.first { $0.first == "d" }.map { $0.count > 1 ? $0[1] : "" } ?? ""
      if let index = entries.firstIndex(where: { stored in
        stored.event.pubkey == event.pubkey && stored.event.kind == event.kind
          && (!addressable
            || (stored.event.tags.first { $0.first == "d" }.map { $0.count > 1 ? $0[1] : "" } ?? "") == tag)
      }) {
        guard event.supersedes(entries[index].event) else { return false }
        ids.remove(entries[index].event.id)
        entries.remove(at: index)
      }
    }
    insert(entry)
    return true
  }
}
