import Foundation
import NostrPushCore

/// The in-memory `NIP98ReplayStore`: the ids a verifier accepted whose events are still within
/// its window, so that a captured header cannot be used twice within one process.
///
/// Keyed by expiry, not by arrival: an id leaves only once its `expiresAt` (the event's
/// `created_at` + the window) has passed, so no flood of fresh headers can push a live id out.
/// When `capacity` live ids are held, a new one is refused (`unavailable`) until some expire. Ids
/// are kept as 32 raw bytes with a min-heap of expiries, so a full set of 10 000 costs well under
/// a megabyte and each burn O(log n). All state is one `Locked` value.
final class ReplaySet: NIP98ReplayStore {
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

  /// Why a burn was refused.
  enum Refusal: Equatable {
    case replayed
    case full
    case malformed
  }

  /// The live ids and their expiries, with a min-heap on expiry; both always hold the same ids.
  private struct Burnt {
    var expiry: [Key: Int64] = [:]
    var heap = ExpiryHeap<Key>()

    mutating func burn(_ id: Key, expiresAt: Int64, now: Int64, capacity: Int) -> Refusal? {
      expire(now: now)
      if expiry[id] != nil { return .replayed }
      guard expiry.count < capacity else { return .full }
      expiry[id] = expiresAt
      heap.insert(id, at: expiresAt)
      return nil
    }

    /// Drops every id whose expiry has passed.
    private mutating func expire(now: Int64) {
      while let first = heap.first, first.at < now {
        expiry[first.value] = nil
        heap.removeFirst()
      }
    }
  }

  private let capacity: Int
  private let burnt = Locked(Burnt())

  /// A set holding at most `capacity` live ids.
  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  /// Records `id` until `expiresAt` as seen at `now`; the refusal, or nil when it was burnt.
  func insert(_ id: String, expiresAt: Int64, now: Int64) -> Refusal? {
    guard let key = Key(hex: id) else { return .malformed }
    return burnt.withLock { $0.burn(key, expiresAt: expiresAt, now: now, capacity: capacity) }
  }

  /// Burns `id` (`NIP98ReplayStore`): `replayed` for a live or malformed id, `unavailable` when
  /// full.
  func burn(_ id: String, expiresAt: Int64, now: Int64) throws(NIP98Error) {
    switch insert(id, expiresAt: expiresAt, now: now) {
    case nil: return
    case .replayed, .malformed:
      throw NIP98Error(code: .replayed, message: "event \(id) was already used")
    case .full:
      throw NIP98Error(
        code: .unavailable, message: "the replay set holds \(capacity) live ids; try again shortly")
    }
  }

  /// How many live ids are remembered (expired ones count until the next burn drops them).
  var count: Int { burnt.withLock { $0.expiry.count } }
}
