import EnrichmentCache
import Foundation
import NostrEvent

/// ``EnrichmentStore`` over the shared SQLite ``EnrichmentCache``.
///
/// Every failure (busy, locked, corrupt) reads as "nothing cached" or a dropped write, so the
/// cache can only make a notification richer, never later or absent. The first busy or locked
/// answer switches the records off for the rest of the wake: each call may wait up to the busy
/// timeout, and a dozen such waits would break the resolver's deadline. Claims live in their own
/// file (`EnrichmentCache`'s claims ledger), so the switch never applies to them: a claim waits
/// for its lock up to the wake's deadline.
struct CacheStore: EnrichmentStore {
  let cache: EnrichmentCache
  private let breaker = CacheBreaker()

  init(_ cache: EnrichmentCache) { self.cache = cache }

  /// The result of `operation`, or nil when the cache is switched off or fails; a busy or locked
  /// failure switches it off.
  private func attempt<T>(_ operation: () throws(CacheError) -> T) -> T? {
    guard !breaker.isTripped else { return nil }
    do {
      return try operation()
    } catch {
      if error.isTransient { breaker.trip() }
      return nil
    }
  }

  func isAccountRemoved(_ account: String) -> Bool {
    attempt { () throws(CacheError) in try cache.isAccountRemoved(account) } ?? false
  }

  func registerAccount(_ account: String) -> Bool {
    attempt { () throws(CacheError) in try cache.registerAccount(account, now: cache.clock()) } ?? true
  }

  func claimDeliveries(
    _ messages: [(id: String, account: String)], relay: RelayOrigin, now: Int64,
    deadline: ContinuousClock.Instant, commitIf: ([String]) -> Bool
  ) -> DeliveryClaim {
    let wait = Int32(clamping: max(0, ContinuousClock.now.duration(to: deadline).wholeMilliseconds))
    do {
      let claimed = try cache.claimDeliveries(
        messages, relay: relay, now: now, waitMilliseconds: wait, commitIf: commitIf)
      return claimed.isEmpty ? .alreadyDelivered : .claimed(claimed)
    } catch {
      switch error.code {
      case .accountRemoved: return .accountRemoved
      // Busy or locked: the claim waited for the lock until the deadline, so the wake timed out.
      case .cancelled, .busy, .locked: return .abandoned
      default: return .unavailable
      }
    }
  }

  /// Marks presented even after a busy answer tripped the breaker: this write is what keeps the
  /// message from being shown twice, so it gets its own busy timeout.
  func markPresented(_ messageIDs: [String], now: Int64) -> Bool {
    do {
      _ = try cache.markPresented(messageIDs, now: now)
      return true
    } catch {
      return false
    }
  }

  func profile(_ scope: StoreScope, pubkey: String, now: Int64) -> ProfileSnapshot? {
    guard
      let cached = attempt({ () throws(CacheError) in
        try cache.lookupProfile(account: scope.account, relay: scope.relay, pubkey: pubkey, now: now)
      }) ?? nil
    else { return nil }
    return ProfileSnapshot(
      displayName: cached.value.displayName, picture: cached.value.pictureURL, isFresh: cached.isFresh)
  }

  func snapshot(_ scope: StoreScope, sender: String, channelID: String?, now: Int64) -> (
    profile: ProfileSnapshot?, channel: ChannelSnapshot?, membership: MembershipSnapshot?
  )? {
    guard
      let records = attempt({ () throws(CacheError) in
        try cache.lookupSnapshot(
          account: scope.account, relay: scope.relay, sender: sender, channelID: channelID, now: now)
      })
    else { return nil }
    return (
      records.profile.map {
        ProfileSnapshot(displayName: $0.value.displayName, picture: $0.value.pictureURL, isFresh: $0.isFresh)
      },
      records.channel.map { ChannelSnapshot($0.value, isFresh: $0.isFresh) },
      records.membership.map { MembershipSnapshot($0.value, isFresh: $0.isFresh) }
    )
  }

  func isListed(_ scope: StoreScope, channelID: String, pubkey: String, signer: String?, now: Int64) -> Bool?
  {
    guard
      let cached = attempt({ () throws(CacheError) in
        try cache.lookupMembership(
          account: scope.account, relay: scope.relay, channelID: channelID, member: pubkey, now: now)
      }) ?? nil
    else { return nil }
    if let signer, cached.value.signer != signer { return nil }
    return cached.value.isListed
  }

  func avatar(_ scope: StoreScope, pubkey: String, url: String, now: Int64) -> AvatarSnapshot? {
    guard
      let cached = attempt({ () throws(CacheError) in
        try cache.lookupAvatar(account: scope.account, relay: scope.relay, pubkey: pubkey, now: now)
      }) ?? nil,
      cached.value.url == url
    else { return nil }
    return AvatarSnapshot(
      bytes: cached.value.bytes, format: cached.value.format, url: cached.value.url,
      validators: AvatarFetcher.Validators(etag: cached.value.etag, lastModified: cached.value.lastModified),
      isFresh: cached.isFresh)
  }

  func saveProfile(_ scope: StoreScope, profile record: Profile, now: Int64) -> ProfileSnapshot? {
    let outcome = attempt { () throws(CacheError) in
      try cache.storeProfiles([record], account: scope.account, relay: scope.relay, now: now)
    }
    switch outcome?.first {
    case .stored?, .renewed?: return ProfileSnapshot(record, isFresh: true)
    case .ignoredOlder?: return profile(scope, pubkey: record.pubkey, now: now)
    case .discardedAccountRemoved?, nil: return nil
    }
  }

  /// Stores the pair of records (made by `EventRecords`, the rule the app's importer goes
  /// through too) in one write; a pair of different signers or channels is not stored.
  func saveChannelPair(_ scope: StoreScope, metadata: ChannelMetadata?, roster: Roster?, now: Int64) {
    if let metadata, let roster, metadata.signer != roster.signer || metadata.channelID != roster.channelID {
      return
    }
    guard metadata != nil || roster != nil else { return }
    _ = attempt { () throws(CacheError) in
      try cache.storeChannel(
        metadata: metadata, roster: roster, account: scope.account, relay: scope.relay, now: now)
    }
  }

  func saveAvatar(_ scope: StoreScope, pubkey: String, avatar: AvatarSnapshot, now: Int64) {
    _ = attempt { () throws(CacheError) in
      try cache.storeAvatar(
        account: scope.account, relay: scope.relay, pubkey: pubkey, url: avatar.url, bytes: avatar.bytes,
        etag: avatar.validators.etag, lastModified: avatar.validators.lastModified, now: now)
    }
  }

  func renewAvatar(_ scope: StoreScope, pubkey: String, url: String, now: Int64) {
    _ = attempt { () throws(CacheError) in
      try cache.renewAvatar(account: scope.account, relay: scope.relay, pubkey: pubkey, url: url, now: now)
    }
  }
}

/// Whether the cache answered busy or locked during this wake; once tripped it stays tripped.
private final class CacheBreaker: Sendable {
  private let tripped = Locked(false)

  var isTripped: Bool { tripped.current }

  func trip() { tripped.withLock { $0 = true } }
}
