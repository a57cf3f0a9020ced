import Bech32
import EnrichmentCache
import Foundation
import NostrEvent
import NostrJSON
import NostrWebSocket
import NotificationResolver
import PushDescriptor
import PushLease
import PushRelay
import RelayFixture

/// The script of `pipeline.md`'s demo, every hop real on loopback: the app enrolls, a second user
/// posts, the relay matches and asks the gateway for a wake, the extension resolves it; then the
/// app revokes and a last message wakes nothing.
///
/// Each step prints one JSON line (`step`, then its fields) on standard output and a sentence on
/// standard error; the first step that does not happen as it should ends the run with a
/// `{"step":"failed","at":…,"message":…}` line.
struct DemoPipeline {
  /// The demo's device token (a test value; the gateway fixture never reaches APNs).
  static let deviceToken = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
  /// The app profile the demo descriptor advertises.
  static let appProfile = "org.nostrpushkit.demo"
  /// How long a wake may take to reach the gateway before the step fails.
  static let wakeTimeout: Duration = .seconds(10)
  /// How long the demo waits to show that a message after revocation wakes nothing.
  static let silenceWindow: Duration = .seconds(1)
  /// How long the demo lets late enrichment reach the cache after a notification.
  static let lingerLimit: Duration = .seconds(3)

  let relay: RelayFixtureServer
  let gateway: GatewayFixture
  let account: SecretKey
  let sender: SecretKey
  let channel: String
  let workspace: String

  /// Runs every step; true when all happened as listed.
  func run() async -> Bool {
    do throws(DemoFailure) {
      try await script()
      return true
    } catch {
      CLIOutput.line(
        bytes: JSONWriter.bytes(
          .object(
            JSONObject([
              "step": .string("failed"), "at": .string(error.step), "message": .string(error.message),
            ]))))
      CLIOutput.error("demo: failed at \(error.step): \(error.message)")
      return false
    }
  }

  private func script() async throws(DemoFailure) {
    guard let origin = relay.origin, let gatewayURL = gateway.baseURL?.absoluteString else {
      throw DemoFailure("discovered", "the fixtures are not running")
    }
    let enrollment = Enrollment(
      relay: origin, key: account, statePath: workspace + "/enrollment.json", now: nil)

    var started = ContinuousClock.now
    let descriptor = try await DemoFailure.at("discovered") { () async throws(EnrollmentFailure) in
      try await enrollment.discover()
    }
    emit(
      "discovered",
      [
        "origin": .string(descriptor.origin), "exec": .string(descriptor.currentKey?.id ?? ""),
        "push_kinds": .array(descriptor.pushKinds.map { .integer(Int64($0)) }),
      ],
      "the relay's NIP-11 document carries a valid push descriptor (origin \(descriptor.origin))",
      since: started)

    started = .now
    let (endpoint, expiresAt) = try await DemoFailure.at("granted") { () async throws(EnrollmentFailure) in
      try await GrantSource.gateway(url: gatewayURL, deviceToken: Self.deviceToken).endpoint(for: descriptor)
    }
    emit(
      "granted", ["expires_at": .integer(expiresAt ?? 0)],
      "the gateway sealed an opaque endpoint grant for the device token", since: started)

    started = .now
    let enrolled = try await DemoFailure.at("enrolled") { () async throws(EnrollmentFailure) in
      try await enrollment.enroll(
        descriptor: descriptor, appProfile: Self.appProfile, transport: "apns", endpoint: endpoint,
        grantExpiresAt: expiresAt, joined: [channel], muted: [])
    }
    guard enrolled.result.accepted else { throw DemoFailure("enrolled", enrolled.result.message) }
    emit(
      "enrolled",
      [
        "d": .string(enrolled.lease.event.tagValues("d").first ?? ""),
        "generation": .integer(enrolled.lease.generation),
        "subscriptions": .integer(Int64(enrolled.lease.subscriptions.count)),
        "event_id": .string(enrolled.lease.event.id),
      ],
      "the NIP-44 lease (kind 30350) was accepted over WebSocket with NIP-42", since: started)
    let filters = try leaseFilters(enrolled.lease.subscriptions)

    let first = try await publish(
      content: "Lunch in the demo channel? nostr:\(npub(account))",
      tags: [["h", channel], ["p", account.publicKeyHex]])
    let firstWake = try await wake(for: first)
    try await notify(firstWake, filters: filters)

    let reply = try await publish(
      content: "Replying in the thread: noon works.",
      tags: [["h", channel], ["e", first.event.id, "", "root"]])
    let secondWake = try await wake(for: reply)
    try await notify(secondWake, filters: filters)

    started = .now
    let revoked = try await DemoFailure.at("revoked") { () async throws(EnrollmentFailure) in
      try await enrollment.revoke()
    }
    guard revoked.result.accepted else { throw DemoFailure("revoked", revoked.result.message) }
    emit(
      "revoked", ["generation": .integer(revoked.lease.generation)],
      "the tombstone (generation \(revoked.lease.generation)) replaced the lease", since: started)

    let last = try await publish(
      content: "Anyone still here? nostr:\(npub(account))",
      tags: [["h", channel], ["p", account.publicKeyHex]])
    try await expectSilence(after: last)
  }

  // MARK: Steps

  /// A message the sender published, and when it was accepted.
  private struct Published {
    let event: Event
    let acceptedAt: ContinuousClock.Instant
  }

  /// A wake the gateway recorded, and when.
  private struct RecordedWake {
    let delivery: GatewayDelivery
    let eventID: String
    let recordedAt: ContinuousClock.Instant
  }

  private func publish(content: String, tags: [[String]]) async throws(DemoFailure) -> Published {
    let started = ContinuousClock.now
    let event: Event
    do {
      event = try UnsignedEvent(
        pubkey: sender.publicKeyHex, createdAt: Int64(Date().timeIntervalSince1970), kind: 9, tags: tags,
        content: content
      ).signed(with: sender)
    } catch {
      throw DemoFailure("published", "cannot sign the message: \(error)")
    }
    let deadline = ContinuousClock.now + Enrollment.stepTimeout
    let result: PublishResult
    do throws(RelayConnectionError) {
      let connection = try await RelayConnection.connect(
        to: "ws" + (relay.origin ?? "").dropFirst("http".count), key: sender, deadline: deadline)
      do throws(RelayConnectionError) {
        result = try await connection.publish(event, deadline: deadline)
      } catch {
        await connection.close()
        throw error
      }
      await connection.close()
    } catch {
      throw DemoFailure("published", "\(error)")
    }
    guard result.accepted else { throw DemoFailure("published", result.message) }
    let acceptedAt = ContinuousClock.now
    emit(
      "published", ["event_id": .string(event.id), "kind": .integer(9), "author": .string(npub(sender))],
      "the second user's message was accepted", since: started)
    return Published(event: event, acceptedAt: acceptedAt)
  }

  private func wake(for message: Published) async throws(DemoFailure) -> RecordedWake {
    let known = Set(gateway.deliveries().map(\.requestID))
    let deadline = ContinuousClock.now + Self.wakeTimeout
    while ContinuousClock.now < deadline {
      if let delivery = gateway.deliveries().first(where: { !known.contains($0.requestID) }) {
        let recordedAt = ContinuousClock.now
        let outbox = (try? relay.wakes()) ?? []
        guard let row = outbox.first(where: { $0.requestID == delivery.requestID }) else {
          throw DemoFailure("wake", "the relay's outbox has no wake \(delivery.requestID)")
        }
        guard row.candidate.eventID == message.event.id else {
          throw DemoFailure("wake", "the wake was for \(row.candidate.eventID), not \(message.event.id)")
        }
        emit(
          "wake",
          [
            "request_id": .string(delivery.requestID),
            "apns_push_type": .string(delivery.headers["apns-push-type"] ?? ""),
            "apns_priority": .integer(Int64(delivery.headers["apns-priority"] ?? "") ?? 0),
            "payload": .string(delivery.body), "event_id": .string(row.candidate.eventID),
          ],
          "match → gateway: the relay matched the lease and the gateway recorded a content-free APNs request",
          since: message.acceptedAt)
        return RecordedWake(delivery: delivery, eventID: row.candidate.eventID, recordedAt: recordedAt)
      }
      try? await Task.sleep(for: .milliseconds(10))
    }
    throw DemoFailure("wake", "no wake reached the gateway within \(Self.wakeTimeout)")
  }

  private func notify(_ wake: RecordedWake, filters: [Filter]) async throws(DemoFailure) {
    let configuration: ResolverConfiguration
    let cache: EnrichmentCache?
    do {
      configuration = try ResolverConfiguration(
        relay: RelayOrigin(relay.origin ?? ""), secretKey: account, filters: filters,
        avatarDirectory: workspace + "/avatars")
      cache = try EnrichmentCache(path: workspace + "/cache.sqlite", busyTimeout: .milliseconds(250))
    } catch {
      throw DemoFailure("notification", "cannot set up the extension: \(error)")
    }
    let resolution = await NotificationResolver(configuration: configuration, cache: cache).resolve()
    guard case .resolved(let notification) = resolution.outcome else {
      throw DemoFailure("notification", "the extension fell back: \(resolution.outcome)")
    }
    guard notification.target.eventID == wake.eventID else {
      throw DemoFailure(
        "notification", "presented \(notification.target.eventID), the wake was for \(wake.eventID)")
    }
    guard
      case .object(var line) = ResolveLine.json(
        resolution.outcome, elapsedMilliseconds: resolution.elapsed.wholeMilliseconds)
    else { throw DemoFailure("notification", "no notification line") }
    line["request_id"] = .string(wake.delivery.requestID)
    CLIOutput.line(
      bytes: JSONWriter.bytes(
        .object(JSONObject([JSONMember(key: "step", value: .string("notification"))] + line.members))))
    CLIOutput.error(
      "demo: notification — gateway → resolved in \((ContinuousClock.now - wake.recordedAt).wholeMilliseconds) ms: "
        + "\"\(notification.title)\" \(notification.subtitle ?? "") (\(notification.enrichment.rawValue))")
    await resolution.lingering.wait(until: .now + Self.lingerLimit)
  }

  private func expectSilence(after message: Published) async throws(DemoFailure) {
    let known = gateway.deliveries().count
    try? await Task.sleep(for: Self.silenceWindow)
    let woke = ((try? relay.wakes()) ?? []).contains { $0.candidate.eventID == message.event.id }
    guard gateway.deliveries().count == known, !woke else {
      throw DemoFailure("silent", "a message after revocation caused a wake")
    }
    emit(
      "silent", ["event_id": .string(message.event.id)],
      "no wake within \(Self.silenceWindow) after revocation", since: message.acceptedAt)
  }

  // MARK: Helpers

  private func emit(
    _ step: String, _ fields: KeyValuePairs<String, JSONValue>, _ sentence: String,
    since: ContinuousClock.Instant
  ) {
    let members =
      [JSONMember(key: "step", value: .string(step))]
      + fields.map { JSONMember(key: $0.key, value: $0.value) }
    CLIOutput.line(bytes: JSONWriter.bytes(.object(JSONObject(members))))
    CLIOutput.error("demo: \(step) — \(sentence) (\((ContinuousClock.now - since).wholeMilliseconds) ms)")
  }

  /// The lease's filters as NIP-01 filters: what the extension asks the relay for.
  private func leaseFilters(_ subscriptions: [LeaseSubscription]) throws(DemoFailure) -> [Filter] {
    do {
      return try subscriptions.map { subscription throws(EventError) in
        try Filter(jsonValue: subscription.filter.jsonValue)
      }
    } catch {
      throw DemoFailure("enrolled", "a lease filter is not a NIP-01 filter: \(error)")
    }
  }

  private func npub(_ key: SecretKey) -> String {
    CompactNpub.canonicalNpub(key.publicKeyHex) ?? key.publicKeyHex
  }
}

/// The step the demo stopped at and why.
struct DemoFailure: Error {
  let step: String
  let message: String

  init(_ step: String, _ message: String) {
    self.step = step
    self.message = message
  }

  /// Runs an app step, reporting its failure at `step`.
  static func at<T>(_ step: String, _ body: () async throws(EnrollmentFailure) -> T) async throws(DemoFailure)
    -> T
  {
    do {
      return try await body()
    } catch {
      throw DemoFailure(step, "\(error.code): \(error.message)")
    }
  }
}
