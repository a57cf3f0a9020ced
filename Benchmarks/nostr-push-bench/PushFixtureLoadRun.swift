import Dispatch
import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushDescriptor
import PushLease
import PushRelay

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The load run of issue 20 through the fixture relay's push mode: leases enrolled over
/// `POST /events` (NIP-98), messages published over one WebSocket, rosters from kind 39002 events
/// signed by NIP-11 `self`, the in-process worker delivering to a gateway fixture; it fails
/// unless every expected (event, device) wake is delivered exactly once and no other.
struct PushFixtureLoadRun: Sendable {
  /// How long the worker may take to drain the outbox before the run fails (10 min).
  static let drainTimeout: Duration = .seconds(600)
  /// The worker's pause between sweeps here (1 ms): a full claim of 16 is sent at once, so a short
  /// pause keeps the drain bounded by the gateway, not by the sweep timer.
  static let sweepInterval: Duration = .milliseconds(1)

  let accounts: Int
  let messages: Int

  func run() async throws -> String {
    let now: Int64 = 1_767_226_200
    let relayKey = SecretKey.generate()
    var document = PushLoadRun.document(origin: "ws://127.0.0.1:1", pubkey: relayKey.publicKeyHex)
    document = #"{"self":"\#(relayKey.publicKeyHex)","# + document.dropFirst()
    let population = LoadPopulation(accounts: accounts, channelGroup: 3)
    let (channels, members) = (population.channels, population.members)
    var rosters: [Event] = []
    for channel in channels {
      let tags = [["d", channel]] + (members[channel] ?? []).sorted().map { ["p", $0] }
      rosters.append(
        try UnsignedEvent(
          pubkey: relayKey.publicKeyHex, createdAt: now - 60, kind: 39002, tags: tags, content: ""
        )
        .signed(with: relayKey))
    }
    let gateway = try GatewayFixture(configuration: GatewayFixtureConfiguration(quota: 0, now: now))
    var base = try await gateway.start().absoluteString
    if base.hasSuffix("/") { base.removeLast() }
    let server = RelayFixtureServer(
      data: RelayFixtureData(
        nip11: Array(document.trimmingCharacters(in: .whitespacesAndNewlines).utf8), events: rosters),
      configuration: RelayFixtureConfiguration(
        now: now, requestLogCapacity: 0,
        push: RelayFixturePushMode(
          pushKey: relayKey, gatewayURL: base,
          gatewayTimeout: .seconds(10), fallbackInterval: Self.sweepInterval)))
    try await server.start()
    let origin = server.origin!
    defer {
      try? blockingRun {
        await server.stop()
        await gateway.stop()
      }
    }
    let descriptor = server.pushDescriptor!
    let planner = SubscriptionPlanner(descriptor: descriptor)
    let builder = LeaseBuilder(descriptor: descriptor, appProfile: descriptor.appProfiles[0])
    let session = URLSession(configuration: .ephemeral)
    let enrollStart = Stopwatch.mark()
    for (index, key) in population.keys.enumerated() {
      let lease = try population.lease(
        index, gateway: gateway, relayKey: relayKey, planner: planner, builder: builder, now: now)
      let body = lease.jsonBytes()
      let url = origin + "/events"
      var request = URLRequest(url: URL(string: url)!)
      request.httpMethod = "POST"
      request.httpBody = Data(body)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.setValue(
        try NIP98.authorizationHeader(url: url, method: "POST", body: body, key: key, now: now),
        forHTTPHeaderField: "Authorization")
      let (data, response) = try await session.data(for: request)
      precondition(
        (response as? HTTPURLResponse)?.statusCode == 200,
        "lease \(index): \(String(decoding: data, as: UTF8.self))")
    }
    let enrollSeconds = Stopwatch.seconds(since: enrollStart)
    let (events, expected) = try LoadMessages.make(
      count: messages, seed: 0x4649_5854, population: population, now: now)
    let connection = try await RelayConnection.connect(
      to: try RelayOrigin(origin).webSocketURL, clock: { now }, deadline: .now + .seconds(10))
    let publishStart = Stopwatch.mark()
    for event in events {
      let answer = try await connection.publish(event, deadline: .now + .seconds(30))
      precondition(answer.accepted, "message \(event.id): \(answer.message)")
    }
    let publishSeconds = Stopwatch.seconds(since: publishStart)
    await connection.close()
    let drained = await Polling.eventually(within: Self.drainTimeout, every: .milliseconds(50)) {
      gateway.deliveries().count >= expected.count
        && ((try? server.wakes().allSatisfy { $0.state != .pending && $0.state != .sending }) ?? false)
    }
    let drainSeconds = Stopwatch.seconds(since: publishStart)
    precondition(drained, "the outbox did not drain within \(Self.drainTimeout)")
    let checked = LoadMessages.checkedSummary(
      gateway.deliveries(), wakes: try server.wakes(), expected: expected, messages: messages,
      accounts: accounts,
      enrollSeconds: enrollSeconds)
    return "PushRelay load through the fixture relay: " + checked.text
      + String(
        format:
          " (POST /events), publish %.0f messages/s (one WebSocket, match+enqueue before OK), publish to last delivery %.1f s (in-process worker, %d ms sweeps, 16 per claim)",
        Double(messages) / publishSeconds, drainSeconds,
        Int(Self.sweepInterval.wholeMilliseconds))
  }
}
