import NostrEvent
import NostrPushCore
import PushRelay

/// Channel rosters for the matcher, from the NIP-29 member lists (kind 39002) the upstreams
/// serve: the current list whose `d` is the channel, signed by an upstream's NIP-11 `self` key
/// (learned when the service reads that relay's document). A list signed by anyone else is never
/// trusted, so no channel has members until its relay's key is known.
final class ServiceRoster: RosterSource {
  private let store: any ServiceEventStore
  private let trusted = Locked(Set<String>())

  init(store: any ServiceEventStore) {
    self.store = store
  }

  /// Trusts `pubkey` (an upstream's NIP-11 `self`) as a signer of member lists.
  func trust(_ pubkey: String) {
    trusted.withLock { _ = $0.insert(pubkey) }
  }

  func members(ofChannel channel: String, origin: String) -> Set<String>? {
    let signers = trusted.current
    guard !signers.isEmpty else { return nil }
    let filter = Filter(
      authors: signers.sorted(), kinds: [UpstreamPlan.membersKind], tags: ["d": [channel]], limit: 1)
    guard let current = try? store.events(matching: [filter], visible: { _ in true }).first else {
      return nil
    }
    return Set(current.tags.compactMap { $0.count >= 2 && $0[0] == "p" ? $0[1] : nil })
  }
}
