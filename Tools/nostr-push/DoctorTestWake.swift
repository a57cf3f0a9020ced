import Foundation
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrWebSocket
import PushDescriptor
import PushLease

/// The doctor's last gate, `--test-wake URL`: a wake for the account's lease is delivered to the
/// gateway fixture at URL.
///
/// The account reads its own lease back (`LeaseValidator`'s author side: NIP-44 is symmetric, so
/// the account key and the push key's pubkey open it), builds an event the lease's matching rule
/// wakes — a note from a throwaway key tagging the account, of the first kind of a subscription
/// that a stranger can satisfy (not a channel message, no `authors`) — and publishes it to the
/// relay, or, when the relay answers `blocked: push relay: publish to <URL>` (the push relay
/// service), to that upstream. URL must be a gateway fixture (`nostr-push gateway` without
/// `--config`): the production gateway sends to APNs and lists nothing back. The gate passes when
/// `GET URL/v1/test/deliveries` lists a delivery that was not there before publishing, signed by
/// the push key the lease is sealed to, within `timeout`; the list is polled every 100 ms and read
/// up to 4 MiB.
struct DoctorTestWake {
  /// The most bytes of `GET /v1/test/deliveries` read.
  static let maxListBytes = 4 * 1024 * 1024
  /// How long the gate waits between two reads of the delivery list.
  static let pollInterval = Duration.milliseconds(100)
  /// The prefix of the push relay service's answer to an ordinary event.
  static let blockedPrefix = "blocked: push relay: publish to "

  /// The gateway fixture's base URL (`http://…`, no trailing slash needed).
  let fixture: String
  /// The relay the doctor checks.
  let relay: String
  /// The account's key.
  let account: SecretKey
  /// The bound of each network step, and of the wait for the wake.
  let timeout: Duration

  /// The gate's verdict for `lease` (the account's newest lease, whose gate passed) at the relay
  /// whose descriptor is `descriptor`: whether it passed, and the reason printed.
  func check(lease: Event, descriptor: PushDescriptor) async -> (passed: Bool, reason: String) {
    let now = Int64(Date().timeIntervalSince1970)
    let d = lease.tagValues("d").first ?? "?"
    let opened: OpenedLease
    do {
      opened = try LeaseValidator(descriptor: descriptor, author: account).open(
        lease, tenantOrigin: descriptor.origin, now: now)
    } catch {
      return (false, "lease d=\(d) cannot be read back: \(error.message)")
    }
    guard case .active(_, _, _, _, let subscriptions) = opened.state else {
      return (false, "lease d=\(d) is a tombstone: nothing to wake")
    }
    guard let signer = descriptor.keys.first(where: { $0.id == opened.keyID })?.pubkey else {
      return (false, "lease d=\(d) names key \(opened.keyID), which the descriptor does not list")
    }
    let probe: Event
    switch Self.probe(subscriptions, owner: account.publicKeyHex, now: now) {
    case .success(let event): probe = event
    case .failure(let refusal): return (false, "lease d=\(d): \(refusal.reason)")
    }
    let before: DeliveryList
    do {
      before = try await deliveries()
    } catch {
      return (false, error.reason)
    }
    let started = ContinuousClock.now
    let published: String
    do {
      published = try await publish(probe)
    } catch {
      return (false, error.reason)
    }
    let deadline = started + timeout
    var latest = before
    while ContinuousClock.now < deadline {
      if let wake = latest.deliveries.first(where: {
        $0.relayPubkey == signer && !before.requestIDs.contains($0.requestID)
      }) {
        return (
          true,
          "a wake for d=\(d) reached \(fixture) (request \(wake.requestID)), seen \(Self.milliseconds(ContinuousClock.now - started)) ms after publishing the kind \(probe.kind) test event to \(published)"
        )
      }
      do {
        try await Task.sleep(for: Self.pollInterval)
        latest = try await deliveries()
      } catch let error as Refusal {
        return (false, error.reason)
      } catch {
        return (false, "cancelled while waiting for the wake")
      }
    }
    // The fixture lists requests in arrival order: those past the earlier count are new.
    let refused = latest.requests.dropFirst(before.requests.count).filter { !(200...299).contains($0.status) }
    let answers =
      refused.isEmpty
      ? ""
      : "; it answered HTTP \(refused.map { String($0.status) }.joined(separator: ", ")) to new delivery requests"
    return (
      false,
      "no wake for d=\(d) reached \(fixture) within \(Self.milliseconds(timeout)) ms of the kind \(probe.kind) test event, published to \(published)\(answers)"
    )
  }

  /// Why the gate fails, as printed after `✗ test wake: `.
  struct Refusal: Error {
    /// The reason.
    var reason: String
  }

  /// A signed event from a throwaway key that the first satisfiable subscription of `subscriptions`
  /// wakes `owner` for, by the matching rule relay and resolver share; else why none can be.
  static func probe(_ subscriptions: [LeaseSubscription], owner: String, now: Int64) -> Result<Event, Refusal>
  {
    let stranger = SecretKey.generate()
    var first: String?
    for subscription in subscriptions {
      let filter = subscription.filter
      let why: String
      let candidates = filter.kinds.filter { !EventKind.channelMessages.contains($0) }
      if let authors = filter.authors {
        why = "its filter names authors (\(authors.count)), so a test event from a fresh key cannot match"
      } else if let kind = candidates.contains(1)
        ? 1 : (candidates.first { $0 != EventKind.giftWrap } ?? candidates.first)
      {
        var tags = [["p", owner]]
        if let value = filter.pTags?.first, value != owner { tags.append(["p", value]) }
        if let value = filter.hTags?.first { tags.append(["h", value]) }
        if let value = filter.eTags?.first { tags.append(["e", value]) }
        if let event = try? UnsignedEvent(
          pubkey: stranger.publicKeyHex, createdAt: now, kind: kind, tags: tags,
          content: "nostr-push doctor test wake"
        ).signed(with: stranger), subscription.matches(event, owner: owner, roster: { _ in nil }) {
          return .success(event)
        }
        why = "a kind \(kind) test event tagging the account is refused by its ignore filters or p-tag limit"
      } else {
        why =
          "its kinds \(filter.kinds) are channel messages, which wake only members of the channel's roster"
      }
      if first == nil { first = "no subscription can be matched by a test event; the first: \(why)" }
    }
    return .failure(Refusal(reason: first ?? "the lease has no subscription"))
  }

  /// The gateway fixture's records: accepted deliveries and every answered request.
  struct DeliveryList {
    /// One accepted delivery: its request id and the relay key that signed it.
    struct Delivery {
      var requestID: String
      var relayPubkey: String
    }
    /// One answered request: its request id (nil when the body was not strict) and status.
    struct Request {
      var requestID: String?
      var status: Int
    }
    var deliveries: [Delivery]
    var requests: [Request]
    /// Every request id the list holds, delivered or only answered.
    var requestIDs: Set<String> {
      Set(deliveries.map(\.requestID)).union(requests.compactMap(\.requestID))
    }
  }

  /// `GET <fixture>/v1/test/deliveries`, read and validated.
  func deliveries() async throws(Refusal) -> DeliveryList {
    let url = (fixture.hasSuffix("/") ? String(fixture.dropLast()) : fixture) + "/v1/test/deliveries"
    let answer: HTTPTransportResponse
    do {
      answer = try await URLSessionHTTPTransport.shared.send(
        HTTPTransportRequest(url: url, method: "GET", maxResponseBytes: Self.maxListBytes),
        deadline: .now + timeout)
    } catch {
      throw Refusal(reason: "\(url) unreachable: \(error.message)")
    }
    guard answer.status == 200,
      let root = (try? JSONReader(maxDepth: 8, maxBytes: Self.maxListBytes).read(answer.body))?.objectValue,
      let deliveries = root["deliveries"]?.arrayValue, let requests = root["requests"]?.arrayValue
    else {
      throw Refusal(
        reason:
          "\(url) answered HTTP \(answer.status) without a delivery list: --test-wake names a gateway fixture"
      )
    }
    var list = DeliveryList(deliveries: [], requests: [])
    for entry in deliveries {
      guard let object = entry.objectValue, let id = object["request_id"]?.stringValue,
        let signer = object["relay_pubkey"]?.stringValue
      else { throw Refusal(reason: "\(url) lists a delivery without request_id and relay_pubkey") }
      list.deliveries.append(DeliveryList.Delivery(requestID: id, relayPubkey: signer))
    }
    for entry in requests {
      guard let object = entry.objectValue, let status = object["status"]?.integerValue else {
        throw Refusal(reason: "\(url) lists a request without a status")
      }
      list.requests.append(
        DeliveryList.Request(requestID: object["request_id"]?.stringValue, status: Int(status)))
    }
    return list
  }

  /// Publishes `event` to the relay, or to the upstream its `blocked:` answer names; returns the
  /// URL that accepted it.
  func publish(_ event: Event) async throws(Refusal) -> String {
    let answer = try await publish(event, to: relay)
    if answer.accepted { return relay }
    guard answer.message.hasPrefix(Self.blockedPrefix) else {
      throw Refusal(reason: "\(relay) refused the test event: \(answer.message)")
    }
    let upstream = String(answer.message.dropFirst(Self.blockedPrefix.count))
    guard upstream.hasPrefix("ws://") || upstream.hasPrefix("wss://") else {
      throw Refusal(reason: "\(relay) names \(upstream) to publish to, which is not a ws:// or wss:// URL")
    }
    let forwarded = try await publish(event, to: upstream)
    guard forwarded.accepted else {
      throw Refusal(reason: "\(upstream) refused the test event: \(forwarded.message)")
    }
    return upstream
  }

  private func publish(_ event: Event, to url: String) async throws(Refusal) -> PublishResult {
    let connection: RelayConnection
    do {
      connection = try await RelayConnection.connect(to: url, key: account, deadline: .now + timeout)
    } catch {
      throw Refusal(reason: "cannot connect to \(url): \(error.code.rawValue): \(error.message)")
    }
    let answer: Result<PublishResult, RelayConnectionError>
    do {
      answer = .success(try await connection.publish(event, deadline: .now + timeout))
    } catch {
      answer = .failure(error)
    }
    await connection.close(deadline: .now + .seconds(1))
    switch answer {
    case .success(let result): return result
    case .failure(let error):
      throw Refusal(
        reason: "cannot publish the test event to \(url): \(error.code.rawValue): \(error.message)")
    }
  }

  /// `duration` in whole milliseconds.
  static func milliseconds(_ duration: Duration) -> Int64 {
    let parts = duration.components
    return parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000
  }
}
