import Foundation
import NostrEvent
import NostrPushCore
import NostrWebSocket
import PushDescriptor
import PushLease

/// The app half of a chat app's push: discover the relay's descriptor, plan the subscriptions,
/// build and publish the lease, and after every accepted publish save the `EnrolledAccount` the
/// extension reads. Production API only: the grant comes from whatever gateway the app uses.
public struct ChatAppSide: Sendable {
  /// A grant from the app's push gateway: the opaque endpoint the lease carries, never the token.
  public struct Grant: Sendable {
    /// The opaque endpoint grant.
    public var grant: String
    /// When it expires (Unix seconds).
    public var expiresAt: Int64

    /// A grant as the gateway answered it.
    public init(grant: String, expiresAt: Int64) {
      self.grant = grant
      self.expiresAt = expiresAt
    }
  }

  /// The signed-in account.
  public let account: SecretKey
  /// The app profile the relay advertises for this app.
  public let profile: PushAppProfile
  /// The shared container (an App Group on iOS): `enrollment.json` and `account.json` live here.
  public let container: URL
  /// The app's clock (Unix seconds).
  public let now: @Sendable () -> Int64

  /// An app half for `account`, keeping its files in `container`.
  public init(
    account: SecretKey, profile: PushAppProfile, container: URL, now: @escaping @Sendable () -> Int64
  ) {
    self.account = account
    self.profile = profile
    self.container = container
    self.now = now
  }

  /// Where the app keeps its `LeaseEnrollment` (generation and `created_at` bookkeeping).
  public var enrollmentFile: URL { container.appendingPathComponent("enrollment.json") }
  /// Where the app saves the `EnrolledAccount` the extension reads.
  public var accountFile: URL { container.appendingPathComponent("account.json") }

  /// 1. The relay's NIP-11 document, its push descriptor validated strictly.
  public func discover(relay: String) async throws -> PushDescriptor {
    try await PushDiscovery().discover(relay: relay).push
  }

  // docs: plan begin
  /// 2. The lease's subscriptions: mentions, the joined channels but the muted ones, direct
  /// messages, and every muted sender as an `ignore` filter, so the relay never wakes the phone
  /// for them.
  public func plan(
    _ descriptor: PushDescriptor, joined: [String], mutedChannels: [String], mutedSenders: [NostrID]
  ) throws -> [LeaseSubscription] {
    let planned = try SubscriptionPlanner(descriptor: descriptor).plan(
      for: account.publicKeyHex, joined: joined, muted: mutedChannels, directMessages: true)
    guard !mutedSenders.isEmpty else { return planned }
    let quiet = try LeaseFilter(
      kinds: PushDescriptor.requiredPushKinds, authors: mutedSenders.map(\.hex), descriptor: descriptor)
    return try planned.map { subscription in
      // A gift wrap's author is a one-time key: muting it there would mute nothing.
      guard !subscription.filter.kinds.contains(1059) else { return subscription }
      return try LeaseSubscription(
        filter: subscription.filter, class: subscription.pushClass, ignore: subscription.ignore + [quiet],
        pTagsMax: subscription.pTagsMax)
    }
  }
  // docs: plan end

  // docs: enroll begin
  /// 3. Build and publish the lease (first enrollment or rotation: the same `d`, the next
  /// generation), then save what the extension needs.
  public func enroll(
    _ descriptor: PushDescriptor, grant: Grant, subscriptions: [LeaseSubscription], mutedSenders: [NostrID]
  ) async throws -> PublishResult {
    var enrollment =
      loadEnrollment() ?? LeaseEnrollment(origin: descriptor.origin, pubkey: account.publicKeyHex)
    enrollment.grantExpiresAt = grant.expiresAt
    let stamp = enrollment.next(now: now())
    try save(enrollment)  // before signing: no publish, failed or unanswered, reuses a generation
    let lease = try LeaseBuilder(descriptor: descriptor, appProfile: profile).active(
      endpoint: grant.grant, subscriptions: subscriptions, generation: stamp.generation,
      createdAt: stamp.createdAt, installationID: enrollment.installationID, grantExpiresAt: grant.expiresAt,
      now: now(), signer: account)
    let result = try await publish(lease, to: descriptor.origin)
    guard result.accepted, let key = descriptor.currentKey, let pushKey = NostrID(key.pubkey),
      let accountID = NostrID(account.publicKeyHex)
    else { return result }
    // Accepted: the extension from now on selects by exactly these subscriptions.
    let enrolled = try EnrolledAccount(
      origin: RelayOrigin(descriptor.origin), pushKeyID: key.id, pushKey: pushKey, account: accountID,
      installationID: enrollment.installationID, generation: stamp.generation, subscriptions: subscriptions,
      mutedPubkeys: mutedSenders)
    try Data(enrolled.jsonBytes).write(to: accountFile, options: .atomic)
    return result
  }
  // docs: enroll end

  /// 4. Sign-out or push turned off: a tombstone with the next generation; the extension's file
  /// goes with it. Nil when this account never enrolled here.
  public func revoke(_ descriptor: PushDescriptor) async throws -> PublishResult? {
    guard var enrollment = loadEnrollment() else { return nil }
    let stamp = enrollment.next(now: now())
    try save(enrollment)
    let tombstone = try LeaseBuilder(descriptor: descriptor).tombstone(
      installationID: enrollment.installationID, generation: stamp.generation, createdAt: stamp.createdAt,
      now: now(), signer: account)
    let result = try await publish(tombstone, to: descriptor.origin)
    if result.accepted { try? FileManager.default.removeItem(at: accountFile) }
    return result
  }

  /// The saved enrollment, nil before the first one.
  public func loadEnrollment() -> LeaseEnrollment? {
    try? JSONDecoder().decode(LeaseEnrollment.self, from: Data(contentsOf: enrollmentFile))
  }

  private func save(_ enrollment: LeaseEnrollment) throws {
    try JSONEncoder().encode(enrollment).write(to: enrollmentFile, options: .atomic)
  }

  /// Publishes to `push.origin` over WebSocket, answering the relay's NIP-42 challenge.
  private func publish(_ event: Event, to origin: String) async throws -> PublishResult {
    let connection = try await RelayConnection.connect(
      to: origin, key: account, clock: now, deadline: .now + .seconds(10))
    let result = try await connection.publish(event, deadline: .now + .seconds(10))
    await connection.close()
    return result
  }
}
