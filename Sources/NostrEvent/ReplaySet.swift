import Foundation

/// The ids accepted recently, so that a captured header cannot be used twice.
///
/// Bounded: entries older than the window are dropped, and when the set is full the oldest
/// entry goes first. Ids are kept as 32 raw bytes, not hex strings, so a full set of 10 000 costs
/// well under a megabyte and no allocation per id. All state is one `Locked` value.
final class ReplaySet: Sendable {
  /// An event id as four machine words.
  struct Key: Hashable {
    var words: (UInt64, UInt64, UInt64, UInt64)

    /// The key of a 64-digit lower- or upper-case hex id; nil for anything else.
    init?(hex: String) {
      var words: [UInt64] = []
      words.reserveCapacity(4)
      var word: UInt64 = 0
      var digits = 0
      for byte in hex.utf8 {
        let value: UInt8
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10
        default: return nil
        }
        guard words.count < 4 else { return nil }
        word = word << 4 | UInt64(value)
        digits += 1
        if digits == 16 {
          words.append(word)
          word = 0
          digits = 0
        }
      }
      guard words.count == 4, digits == 0 else { return nil }
      self.words = (words[0], words[1], words[2], words[3])
    }

    static func == (lhs: Key, rhs: Key) -> Bool {
      lhs.words == rhs.words
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(words.0)
      hasher.combine(words.1)
      hasher.combine(words.2)
      hasher.combine(words.3)
    }
  }

  /// The ids seen, oldest first, and when; dropped entries are compacted away.
  private struct Seen {
    var seenAt: [Key: Int64] = [:]
    var order: [(id: Key, time: Int64)] = []
    var head = 0

    mutating func insert(_ id: Key, now: Int64, window: Int64, capacity: Int) -> Bool {
      expire(now: now, window: window)
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

    private mutating func expire(now: Int64, window: Int64) {
      while head < order.count, now - order[head].time > window {
        drop(order[head])
        head += 1
      }
    }

    /// Forgets `entry` unless its id was recorded again later.
    private mutating func drop(_ entry: (id: Key, time: Int64)) {
      if seenAt[entry.id] == entry.time { seenAt[entry.id] = nil }
    }

    /// Gives back the memory of dropped entries once they are the larger part.
    private mutating func compact() {
      if head > 1024, head * 2 > order.count {
        order = Array(order[head...])
        head = 0
        if seenAt.capacity > 4 * max(1024, seenAt.count) {
          seenAt = Dictionary(uniqueKeysWithValues: seenAt.map { ($0.key, $0.value) })
        }
      }
    }
  }

  private let window: Int64
  private let capacity: Int
  private let seen = Locked(Seen())

  init(window: Int64, capacity: Int) {
    self.window = window
    self.capacity = max(1, capacity)
  }

  /// Records `id` as seen at `now`; false when it was already seen within the window, or is not
  /// a 64-digit hex id (a verified event's id always is).
  func insert(_ id: String, now: Int64) -> Bool {
    guard let id = Key(hex: id) else { return false }
    return seen.withLock { $0.insert(id, now: now, window: window, capacity: capacity) }
  }

  /// How many ids are remembered.
  var count: Int { seen.withLock { $0.seenAt.count } }
}
