/// A binary min-heap of values keyed by an expiry time: the package's one such heap, under the
/// NIP-98 replay set (ids until their `created_at` leaves the window) and the relay's lease
/// index (leases until they expire).
package struct ExpiryHeap<Value>: Sendable where Value: Sendable {
  /// The entries in heap order: the earliest expiry first.
  package private(set) var entries: [(at: Int64, value: Value)] = []

  /// Creates an empty heap.
  package init() {}

  /// The entry that expires first, if any.
  package var first: (at: Int64, value: Value)? { entries.first }

  /// The number of entries.
  package var count: Int { entries.count }

  /// Adds `value`, expiring at `at`.
  package mutating func insert(_ value: Value, at: Int64) {
    entries.append((at, value))
    var child = entries.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard entries[child].at < entries[parent].at else { break }
      entries.swapAt(child, parent)
      child = parent
    }
  }

  /// Removes the entry that expires first (nothing when empty).
  package mutating func removeFirst() {
    guard !entries.isEmpty else { return }
    let last = entries.removeLast()
    guard !entries.isEmpty else { return }
    entries[0] = last
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < entries.count, entries[left].at < entries[smallest].at { smallest = left }
      if right < entries.count, entries[right].at < entries[smallest].at { smallest = right }
      guard smallest != parent else { return }
      entries.swapAt(parent, smallest)
      parent = smallest
    }
  }

  /// Empties the heap.
  package mutating func removeAll() { entries.removeAll() }
}
