import Foundation

/// The ids accepted recently, so that a captured header cannot be used twice.
///
/// Bounded: entries older than the window are dropped, and when the set is full the oldest
/// entry goes first. `@unchecked Sendable`: all state is read and written under `lock`.
final class ReplaySet: @unchecked Sendable {
  private let window: Int64
  private let capacity: Int
  private let lock = NSLock()
  private var seenAt: [String: Int64] = [:]
  private var order: [(id: String, time: Int64)] = []
  private var head = 0

  init(window: Int64, capacity: Int) {
    self.window = window
    self.capacity = max(1, capacity)
  }

  /// Records `id` as seen at `now`; false when it was already seen within the window.
  func insert(_ id: String, now: Int64) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    expire(now: now)
    if let previous = seenAt[id], now - previous <= window { return false }
    while seenAt.count >= capacity, head < order.count {
      drop(order[head])
      head += 1
    }
    seenAt[id] = now
    order.append((id, now))
    compact()
    return true
  }

  /// How many ids are remembered.
  var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return seenAt.count
  }

  private func expire(now: Int64) {
    while head < order.count, now - order[head].time > window {
      drop(order[head])
      head += 1
    }
  }

  /// Forgets `entry` unless its id was recorded again later.
  private func drop(_ entry: (id: String, time: Int64)) {
    if seenAt[entry.id] == entry.time { seenAt[entry.id] = nil }
  }

  private func compact() {
    if head > 1024, head * 2 > order.count {
      order.removeFirst(head)
      head = 0
    }
  }
}
