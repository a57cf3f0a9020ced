import EnrichmentCache
import NostrEvent

/// The account and relay a cached record belongs to; no read or write crosses scopes.
struct StoreScope: Sendable, Hashable {
  var account: String
  var relay: RelayOrigin
}

/// A sender's cached or fetched profile, as far as a notification needs it.
struct ProfileSnapshot: Sendable, Hashable {
  var displayName: String?
  var picture: String?
  var isFresh: Bool
}

extension ProfileSnapshot {
  /// The snapshot of a parsed profile.
  init(_ profile: Profile, isFresh: Bool) {
    self.init(displayName: profile.displayName, picture: profile.pictureURL, isFresh: isFresh)
  }
}

/// A channel's metadata, signed by `signer`: what the cache's record (`ChannelMetadata`, made by
/// `EventRecords`, the one owner of event → record) says, never parsed by the resolver itself.
struct ChannelSnapshot: Sendable, Hashable {
  var name: String?
  var type: String?
  var signer: String
  var isFresh: Bool

  init(_ record: ChannelMetadata, isFresh: Bool) {
    self.name = record.name
    self.type = record.type?.rawValue
    self.signer = record.signer
    self.isFresh = isFresh
  }
}

/// A channel's roster summary for the sender, signed by `signer`: the cache's record
/// (`Membership`, from `EventRecords`' roster), never parsed by the resolver itself.
struct MembershipSnapshot: Sendable, Hashable {
  var memberCount: Int
  /// Whether the sender counts as a member: listed, or outside a roster truncated at
  /// `Membership.maxStoredMembers` (a presented channel message passed the membership rule).
  var senderIsListed: Bool
  var signer: String
  var isFresh: Bool

  init(_ record: Membership, isFresh: Bool) {
    self.memberCount = record.count
    self.senderIsListed = record.isListed != false
    self.signer = record.signer
    self.isFresh = isFresh
  }
}

/// An avatar image with its source URL and validators.
struct AvatarSnapshot: Sendable, Hashable {
  var bytes: [UInt8]
  var format: ImageFormat
  var url: String
  var validators: AvatarFetcher.Validators
  var isFresh: Bool
}

/// The outcome of claiming a wake's candidates for delivery.
enum DeliveryClaim: Sendable, Hashable {
  /// This wake claimed these ids (a non-empty subset of the candidates, in their order).
  case claimed([String])
  /// Every candidate is presented or under another wake's live claim.
  case alreadyDelivered
  /// The claim could not be recorded (the claims file could not be written by the deadline):
  /// the wake presents the fallback, never a message it could not claim.
  case unavailable
  /// The account was removed; nothing is presented.
  case accountRemoved
  /// The wake's deadline passed before the claim committed (or while it waited for the claims'
  /// lock); nothing was recorded.
  case abandoned
}

/// What the resolver needs from the enrichment cache, in its own terms.
///
/// Every method is bounded by the cache's busy timeout and never throws: a cache that cannot
/// answer reads as empty and drops writes, so a broken or locked cache never stops a notification.
/// Every method may block for that long, so async code calls them through `BlockingWork.run`.
protocol EnrichmentStore: Sendable {
  func isAccountRemoved(_ account: String) -> Bool
  /// Registers the account on first use in one atomic step, unless it was removed: false for a
  /// removed account, true otherwise (also when the cache cannot answer).
  func registerAccount(_ account: String) -> Bool
  /// Claims the ids not presented and not under a live claim, in one transaction, waiting for the
  /// claims' lock up to `deadline` (not the cache's busy timeout); `commitIf` decides, with the
  /// lock held and the claimed ids known, whether the claim may commit (false: `.abandoned`,
  /// nothing recorded).
  func claimDeliveries(
    _ messages: [(id: String, account: String)], relay: RelayOrigin, now: Int64,
    deadline: ContinuousClock.Instant, commitIf: ([String]) -> Bool
  ) -> DeliveryClaim
  /// Marks claimed messages presented; false when the cache could not answer.
  func markPresented(_ messageIDs: [String], now: Int64) -> Bool
  func profile(_ scope: StoreScope, pubkey: String, now: Int64) -> ProfileSnapshot?
  /// The sender's profile and the channel's metadata and roster summary, read in one read
  /// transaction (the wake's one read of the records); nil when the cache cannot answer.
  func snapshot(_ scope: StoreScope, sender: String, channelID: String?, now: Int64) -> (
    profile: ProfileSnapshot?, channel: ChannelSnapshot?, membership: MembershipSnapshot?
  )?
  func avatar(_ scope: StoreScope, pubkey: String, url: String, now: Int64) -> AvatarSnapshot?
  /// Whether `pubkey` is in the cached roster of `channelID` (signed by `signer` when given):
  /// true or false when the roster is complete, nil when it is unknown (none cached, another
  /// signer, or a roster truncated at the stored maximum that does not list the key).
  func isListed(_ scope: StoreScope, channelID: String, pubkey: String, signer: String?, now: Int64) -> Bool?
  /// Stores the profile of a verified kind 0 event and returns the profile now stored (nil when
  /// nothing is).
  func saveProfile(_ scope: StoreScope, profile: Profile, now: Int64) -> ProfileSnapshot?
  /// Stores a channel refresh: the records of verified relay-signed metadata, roster, or both
  /// (made by `EventRecords`), in one write.
  func saveChannelPair(_ scope: StoreScope, metadata: ChannelMetadata?, roster: Roster?, now: Int64)
  func saveAvatar(_ scope: StoreScope, pubkey: String, avatar: AvatarSnapshot, now: Int64)
  func renewAvatar(_ scope: StoreScope, pubkey: String, url: String, now: Int64)
}
