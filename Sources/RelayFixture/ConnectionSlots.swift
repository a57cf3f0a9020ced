import Foundation

/// Counts the connections being served and makes the accept loop wait while all slots are taken.
///
/// Waiting (rather than refusing) leaves extra clients in the kernel's listen backlog, so a burst
/// over the limit is served late instead of failing. `@unchecked Sendable` is sound because every
/// access to the counters happens with `condition` locked.
final class ConnectionSlots: @unchecked Sendable {
  private let condition = NSCondition()
  private let capacity: Int
  private var active = 0
  private var stopping = false

  /// Creates slots for `capacity` simultaneous connections.
  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  /// Waits for a free slot and takes it; false when the server is stopping.
  func acquire() -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while active >= capacity && !stopping { condition.wait() }
    guard !stopping else { return false }
    active += 1
    return true
  }

  /// Gives a slot back.
  func release() {
    condition.lock()
    active -= 1
    condition.signal()
    condition.unlock()
  }

  /// Wakes a waiting `acquire()` for good: it returns false from now on.
  func stop() {
    condition.lock()
    stopping = true
    condition.broadcast()
    condition.unlock()
  }
}
