import NostrEvent
import NostrPushCore
import PushLease

/// The live leases of one origin, indexed by the exact values their filters narrow on and
/// updated by address: an accept, a tombstone, a disabled endpoint or an expiry changes one entry,
/// never the whole index, so a change costs the same with 100 leases or 100 000.
///
/// Every lease filter is narrowed by `#p`, `#h` or `authors` (the validator refuses others), and
/// all of a filter's conditions must hold, so a filter can match only an event carrying one of the
/// values of its narrowing member: a subscription is keyed by the values of its `#p`, else `#h`,
/// else `authors`, and an event looks up its `p` and `h` tag values and its pubkey. A subscription
/// narrowed by none of them (a store that skipped the validator) is met by every event. Expiry is
/// a min-heap: ``removeExpired(now:)`` takes out every lease whose `expires_at` has come, so a
/// lease past it is never met. Not thread-safe: its store uses it under the store's lock.
package struct LeaseIndex: Sendable {
  private struct Key: Hashable, Sendable {
    var member: UInt8
    var value: String
  }

  private struct Expiry: Sendable {
    var at: Int64
    var slot: Int
    var eventID: String
  }

  /// A lease held by reference with its wake target made once, so meeting an event retains one
  /// box instead of copying every field of the row.
  private final class Entry: Sendable {
    let lease: StoredLease
    let target: WakeTarget
    init(_ lease: StoredLease, target: WakeTarget) {
      self.lease = lease
      self.target = target
    }

    /// Lends the row and its target to `body` without copying them.
    func withLease(_ body: (borrowing StoredLease, WakeTarget) -> Void) { body(lease, target) }
  }

  private var slots: [Entry?] = []
  private var keysOfSlot: [[Key]] = []
  private var free: [Int] = []
  private var slotOfAddress: [LeaseAddress: Int] = [:]
  private var byKey: [Key: [Int]] = [:]
  private var everywhere: Set<Int> = []
  private var expiries = ExpiryHeap<Expiry>()
  private var marks: [UInt32] = []
  private var stamp: UInt32 = 0
  private var compactor = LeaseCompactor()

  /// An index of `leases` (each should be live: active and enabled; expiry is checked here).
  package init(_ leases: [StoredLease] = []) {
    for lease in leases { update(lease) }
  }

  /// How many leases the index holds.
  package var count: Int { slotOfAddress.count }

  /// Every lease held, in no particular order.
  package var leases: [StoredLease] { slots.compactMap { $0?.lease } }

  /// Puts `lease` at its address, replacing what was there; a lease that is not active and
  /// enabled (a tombstone, a disabled endpoint) only removes the address.
  package mutating func update(_ lease: StoredLease) {
    remove(lease.address)
    guard lease.active, lease.endpointEnabled else { return }
    let lease = compactor.compact(lease)
    guard let target = WakeTarget(lease) else { return }
    let slot: Int
    if let reused = free.popLast() {
      slot = reused
      slots[slot] = Entry(lease, target: target)
    } else {
      slot = slots.count
      slots.append(Entry(lease, target: target))
      keysOfSlot.append([])
      marks.append(0)
    }
    slotOfAddress[lease.address] = slot
    var keys: Set<Key> = []
    var unnarrowed = false
    for subscription in lease.subscriptions {
      let filter = subscription.filter
      if let values = filter.pTags {
        for value in values { keys.insert(Key(member: UInt8(ascii: "p"), value: value)) }
      } else if let values = filter.hTags {
        for value in values { keys.insert(Key(member: UInt8(ascii: "h"), value: value)) }
      } else if let authors = filter.authors {
        for value in authors { keys.insert(Key(member: UInt8(ascii: "a"), value: value)) }
      } else {
        unnarrowed = true
      }
    }
    if unnarrowed {
      everywhere.insert(slot)
      keysOfSlot[slot] = []
    } else {
      keysOfSlot[slot] = Array(keys)
      for key in keys { byKey[key, default: []].append(slot) }
    }
    push(Expiry(at: lease.expiresAt, slot: slot, eventID: lease.eventID))
  }

  /// Takes the lease at `address` out, if any.
  package mutating func remove(_ address: LeaseAddress) {
    guard let slot = slotOfAddress.removeValue(forKey: address) else { return }
    for key in keysOfSlot[slot] {
      guard var list = byKey[key], let position = list.firstIndex(of: slot) else { continue }
      list.swapAt(position, list.count - 1)
      list.removeLast()
      byKey[key] = list.isEmpty ? nil : list
    }
    keysOfSlot[slot] = []
    everywhere.remove(slot)
    slots[slot] = nil
    free.append(slot)
  }

  /// Takes out every lease whose `expires_at` ≤ `now`; returns their addresses.
  @discardableResult
  package mutating func removeExpired(now: Int64) -> [LeaseAddress] {
    var removed: [LeaseAddress] = []
    while let first = expiries.first, first.at <= now {
      expiries.removeFirst()
      // A slot reused or re-leased since holds another event: that entry's own expiry governs.
      if let entry = slots[first.value.slot], entry.lease.eventID == first.value.eventID {
        removed.append(entry.lease.address)
        remove(entry.lease.address)
      }
    }
    return removed
  }

  /// The leases `event` could match, in slot order, each once.
  package mutating func leases(for event: Event) -> [StoredLease] {
    var result: [StoredLease] = []
    forEachLease(for: event) { lease, _ in result.append(copy lease) }
    return result
  }

  /// Calls `body` with each lease `event` could match and its wake target, in slot order, each
  /// once, without copying the rows.
  package mutating func forEachLease(for event: Event, _ body: (borrowing StoredLease, WakeTarget) -> Void) {
    stamp &+= 1
    if stamp == 0 {
      for index in marks.indices { marks[index] = 0 }
      stamp = 1
    }
    var found: [Int] = []
    func take(_ list: [Int]) {
      for slot in list where marks[slot] != stamp {
        marks[slot] = stamp
        found.append(slot)
      }
    }
    if !everywhere.isEmpty { take(Array(everywhere)) }
    if let hits = byKey[Key(member: UInt8(ascii: "a"), value: event.pubkey)] { take(hits) }
    for tag in event.tags where tag.count >= 2 {
      let member: UInt8
      switch tag[0] {
      case "p": member = UInt8(ascii: "p")
      case "h": member = UInt8(ascii: "h")
      default: continue
      }
      if let hits = byKey[Key(member: member, value: tag[1])] { take(hits) }
    }
    found.sort()
    for slot in found {
      slots[slot]?.withLease(body)
    }
  }

  // MARK: Expiry heap

  private mutating func push(_ entry: Expiry) {
    // Replaced leases leave their entries behind; past twice the live count, rebuild from the
    // live slots so the heap stays bounded by the leases held.
    if expiries.count > 2 * slotOfAddress.count + 64 {
      let live = expiries.entries.filter { slots[$0.value.slot]?.lease.eventID == $0.value.eventID }
      expiries.removeAll()
      for kept in live { expiries.insert(kept.value, at: kept.at) }
    }
    expiries.insert(entry, at: entry.at)
  }
}
