import EnrichmentCache
import NostrEvent
import NostrPushCore

/// The parts of a notification that name its sender and channel, as known at the deadline.
struct EnrichedParts: Sendable {
  var profile: ProfileSnapshot?
  var profileRefreshed = false
  var channel: ChannelSnapshot?
  var membership: MembershipSnapshot?
  var avatar: AvatarSnapshot?
  /// The account's note a social notification is about, fetched by id and verified.
  var note: Event?
  /// A reaction's custom emoji image, the attachment in place of the avatar.
  var emoji: AvatarSnapshot?
}

/// Collects the results of the enrichment requests as they arrive.
actor EnrichmentBoard {
  private(set) var profile: ProfileSnapshot?
  private(set) var channel: ChannelSnapshot?
  private(set) var membership: MembershipSnapshot?
  private(set) var avatar: AvatarSnapshot?
  private(set) var relayKey: String?
  private(set) var note: Event?
  private(set) var emoji: AvatarSnapshot?

  func set(profile: ProfileSnapshot) { self.profile = profile }
  func set(relayKey: String) { self.relayKey = relayKey }
  func set(channel: ChannelSnapshot) { self.channel = channel }
  func set(membership: MembershipSnapshot) { self.membership = membership }
  func set(avatar: AvatarSnapshot) { self.avatar = avatar }
  func set(note: Event) { self.note = note }
  func set(emoji: AvatarSnapshot) { self.emoji = emoji }
}

/// One wake's enrichment: cache first, then separate bounded requests for each missing or stale
/// part, all started at once; at the deadline, whatever is there.
///
/// Requests still running at the deadline go on (the returned ``LingeringWork``) and write their
/// results to the cache, unless the account was removed meanwhile.
struct EnrichmentRun: Sendable {
  let scope: StoreScope
  let sender: String
  let channelID: String?
  /// The relay key (configured, or NIP-11 `self` once it arrives); only the channel pair waits
  /// for it, so a slow NIP-11 answer never holds up the sender's name.
  let relayKey: @Sendable () async -> String?
  let store: (any EnrichmentStore)?
  let client: RelayClient
  let avatars: AvatarFetcher
  let now: Int64
  /// How long a request may run, including after the budget, before it is abandoned.
  let requestTimeout: Duration
  /// The account's note to fetch by id for a social notification's body (a reaction's or a zap's
  /// target), nil for none.
  var noteID: String? = nil
  /// A reaction's custom emoji image URL to fetch as the attachment, nil for none.
  var emojiURL: String? = nil

  /// What the cache holds for this message before any request.
  private struct CachedParts {
    var profile: ProfileSnapshot?
    var channel: ChannelSnapshot?
    var membership: MembershipSnapshot?

    /// Whether channel metadata and membership are both fresh (they refresh as a pair).
    var pairIsFresh: Bool { channel?.isFresh == true && membership?.isFresh == true }
  }

  func run(deadline: ContinuousClock.Instant) async -> (EnrichedParts, LingeringWork) {
    let cached = await cache { _ in readCache() } ?? CachedParts()
    let board = EnrichmentBoard()
    let tasks = startRequests(cached: cached, board: board)
    _ = await DeadlineRace.value(by: deadline) {
      for task in tasks { await task.value }
      return true
    }
    return (await collect(cached: cached, board: board), LingeringWork(tasks))
  }

  /// The cache's records for this message, in the wake's one read transaction.
  private func readCache() -> CachedParts {
    guard let records = store?.snapshot(scope, sender: sender, channelID: channelID, now: now) else {
      return CachedParts()
    }
    return CachedParts(profile: records.profile, channel: records.channel, membership: records.membership)
  }

  /// The cached channel pair as far as `relayKey` signed it.
  private func signed(_ cached: CachedParts, by relayKey: String?) -> CachedParts {
    var parts = cached
    parts.channel = cached.channel.flatMap { $0.signer == relayKey ? $0 : nil }
    parts.membership = cached.membership.flatMap { $0.signer == relayKey ? $0 : nil }
    return parts
  }

  /// Starts one task for the profile (then its avatar) and, unless the pair is fresh, one for
  /// the channel pair; every request is bounded by `requestTimeout` from now.
  private func startRequests(cached: CachedParts, board: EnrichmentBoard) -> [Task<Void, Never>] {
    let requestDeadline = ContinuousClock.now + requestTimeout
    let profileIsFresh = cached.profile?.isFresh == true
    var tasks = [
      Task {
        var picture = cached.profile?.picture
        if !profileIsFresh, let fetched = await fetchProfile(deadline: requestDeadline) {
          await board.set(profile: fetched)
          picture = fetched.picture
        }
        if let picture, let avatar = await fetchAvatar(picture, deadline: requestDeadline) {
          await board.set(avatar: avatar)
        }
      }
    ]
    if let noteID {
      tasks.append(
        Task {
          if let note = await fetchNote(noteID, deadline: requestDeadline) { await board.set(note: note) }
        })
    }
    if let emojiURL {
      tasks.append(
        Task {
          let result = await avatars.fetch(emojiURL, validators: nil, deadline: requestDeadline)
          if case .image(let bytes, let format, _, _) = result {
            await board.set(
              emoji: AvatarSnapshot(
                bytes: bytes, format: format, url: emojiURL,
                validators: AvatarFetcher.Validators(etag: nil, lastModified: nil), isFresh: true))
          }
        })
    }
    if let channelID {
      tasks.append(
        Task {
          guard let relayKey = await relayKey() else { return }
          await board.set(relayKey: relayKey)
          guard !signed(cached, by: relayKey).pairIsFresh else { return }
          async let metadata = fetchChannelEvent(
            kind: EventKind.groupMetadata, channelID, relayKey: relayKey, deadline: requestDeadline
          ) {
            if let record = try? EventRecords.channelMetadata($0) {
              await board.set(channel: ChannelSnapshot(record, isFresh: true))
            }
          }
          async let roster = fetchRoster(channelID, relayKey: relayKey, deadline: requestDeadline) {
            await board.set(membership: MembershipSnapshot($0.membership(for: sender), isFresh: true))
          }
          let (metadataEvent, rosterRecord) = await (metadata, roster)
          guard metadataEvent != nil || rosterRecord != nil, await !accountGone() else { return }
          let metadataRecord = metadataEvent.flatMap { try? EventRecords.channelMetadata($0) }
          await cache { store in
            store.saveChannelPair(scope, metadata: metadataRecord, roster: rosterRecord, now: now)
          }
        })
    }
    return tasks
  }

  /// What is there at the deadline: refreshed parts first, else cached ones; a channel pair is
  /// never mixed from a refresh and an older cache entry.
  private func collect(cached unverified: CachedParts, board: EnrichmentBoard) async -> EnrichedParts {
    let cached = signed(unverified, by: await board.relayKey)
    var parts = EnrichedParts()
    let refreshedProfile = await board.profile
    parts.profile = refreshedProfile ?? cached.profile
    parts.profileRefreshed = refreshedProfile != nil
    let refreshedChannel = await board.channel
    let refreshedMembership = await board.membership
    if !cached.pairIsFresh, refreshedChannel != nil || refreshedMembership != nil {
      parts.channel = refreshedChannel
      parts.membership = refreshedMembership
    } else {
      parts.channel = cached.channel
      parts.membership = cached.membership
    }
    parts.note = await board.note
    parts.emoji = await board.emoji
    if let picture = parts.profile?.picture {
      if let avatar = await board.avatar, avatar.url == picture {
        parts.avatar = avatar
      } else if let stored = await cache({ $0.avatar(scope, pubkey: sender, url: picture, now: now) }) ?? nil
      {
        parts.avatar = stored
      }
    }
    return parts
  }

  private func newest(_ events: [Event], matching filter: Filter) -> Event? {
    events.filter { filter.matches($0) }.min { $0.supersedes($1) }
  }

  /// `body` on the store through ``BlockingWork`` (every store call may wait out the busy
  /// timeout, so none runs on the cooperative pool); nil without a store.
  @discardableResult
  private func cache<T: Sendable>(_ body: @escaping @Sendable (any EnrichmentStore) -> T) async -> T? {
    guard let store else { return nil }
    return await BlockingWork.run { body(store) }
  }

  private func accountGone() async -> Bool {
    let scope = self.scope
    return await cache { $0.isAccountRemoved(scope.account) } ?? false
  }

  private func fetchProfile(deadline: ContinuousClock.Instant) async -> ProfileSnapshot? {
    let filter = Filter(authors: [sender], kinds: [EventKind.profile], limit: 1)
    guard
      let events = try? await client.query([filter], cap: RelayClient.profileQueryCap, deadline: deadline),
      let event = newest(events, matching: filter), event.pubkey == sender, event.kind == EventKind.profile,
      await !accountGone()
    else { return nil }
    guard let profile = try? Profile(event: event) else { return nil }
    let (scope, now) = (self.scope, self.now)
    guard let store else { return ProfileSnapshot(profile, isFresh: true) }
    // A cache that cannot store it still leaves the verified profile for this notification.
    return await BlockingWork.run { store.saveProfile(scope, profile: profile, now: now) }
      ?? ProfileSnapshot(profile, isFresh: true)
  }

  /// Fetches the account's note `id` (a social notification's target): kept only when it verified
  /// (the client drops the rest), has that id and the account wrote it.
  private func fetchNote(_ id: String, deadline: ContinuousClock.Instant) async -> Event? {
    let filter = Filter(ids: [id], authors: [scope.account], limit: 1)
    guard let events = try? await client.query([filter], cap: RelayClient.profileQueryCap, deadline: deadline)
    else { return nil }
    return events.first { $0.id == id && $0.pubkey == scope.account }
  }

  /// Fetches the relay-signed roster of `channelID` (read in place, never as tag arrays), hands
  /// it to `arrived`, and returns it for the paired cache write.
  private func fetchRoster(
    _ channelID: String, relayKey: String, deadline: ContinuousClock.Instant,
    arrived: @Sendable (Roster) async -> Void
  ) async -> Roster? {
    let filter = Filter(
      authors: [relayKey], kinds: [EventKind.groupMembers], tags: ["d": [channelID]], limit: 1)
    guard let rosters = try? await client.rosters(filter, signer: relayKey, deadline: deadline),
      let roster = rosters.filter({ $0.channelID == channelID }).min(by: { lhs, rhs in
        Event.supersedes(
          createdAt: lhs.createdAt, id: lhs.eventID, overCreatedAt: rhs.createdAt, id: rhs.eventID)
      })
    else { return nil }
    await arrived(roster)
    return roster
  }

  /// Fetches the relay-signed kind 39000 or 39002 event of `channelID`, hands it to `arrived` as
  /// soon as it is verified, and returns it for the paired cache write.
  private func fetchChannelEvent(
    kind: Int, _ channelID: String, relayKey: String, deadline: ContinuousClock.Instant,
    arrived: @Sendable (Event) async -> Void
  ) async -> Event? {
    let filter = Filter(authors: [relayKey], kinds: [kind], tags: ["d": [channelID]], limit: 1)
    let cap = kind == EventKind.groupMetadata ? RelayClient.channelQueryCap : RelayClient.membershipQueryCap
    guard let events = try? await client.query([filter], cap: cap, deadline: deadline),
      let event = newest(events, matching: filter), event.pubkey == relayKey, event.kind == kind
    else { return nil }
    await arrived(event)
    return event
  }

  private func fetchAvatar(_ picture: String, deadline: ContinuousClock.Instant) async -> AvatarSnapshot? {
    let (scope, sender, now) = (self.scope, self.sender, self.now)
    let cached = await cache { $0.avatar(scope, pubkey: sender, url: picture, now: now) } ?? nil
    if let cached, cached.isFresh { return cached }
    let avatars = self.avatars
    let validators = cached?.validators
    let key = "\(scope.account) \(scope.relay) \(picture)"
    let result = await InFlightAvatars.shared.result(for: key) {
      await avatars.fetch(picture, validators: validators, deadline: deadline)
    }
    guard await !accountGone() else { return nil }
    switch result {
    case .image(let bytes, let format, let etag, let lastModified):
      let avatar = AvatarSnapshot(
        bytes: bytes, format: format, url: picture,
        validators: AvatarFetcher.Validators(etag: etag, lastModified: lastModified), isFresh: true)
      await cache { $0.saveAvatar(scope, pubkey: sender, avatar: avatar, now: now) }
      return avatar
    case .notModified:
      await cache { $0.renewAvatar(scope, pubkey: sender, url: picture, now: now) }
      return cached
    case .refused:
      return nil
    }
  }
}
