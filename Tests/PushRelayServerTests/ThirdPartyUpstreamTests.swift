import Foundation
import NostrEvent
import NostrJSON
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushRelay
import PushRelayServer
import Testing

/// The service following relays no one here wrote, each started by the test as a process:
/// PyPI `nostr-relay` and rust-nostr's local relay (`bash Scripts/setup` installs both).
@Suite(.enabled(if: ThirdPartyRelay.isInstalled, "bash Scripts/setup installs nostr-relay and nostr-sdk"))
struct ThirdPartyUpstreamTests {
  @Test(arguments: ThirdPartyRelay.Kind.allCases)
  func aMentionPublishedUpstreamWakesOnceAndIsQueryable(_ kind: ThirdPartyRelay.Kind) async throws {
    try await ServiceWorld.following(kind, auth: kind == .rustNostrAuth) { world, relay in
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      #expect(
        await Polling.eventually(within: .seconds(10)) {
          world.service.metrics.openSubscriptions(relay.url) > 0
        })
      let mention = ServiceWorld.mention(content: "via \(kind)")
      let published = try await world.publishUpstream(mention)
      #expect(published.accepted, "\(published.message)")
      #expect(await Polling.eventually(within: .seconds(15)) { world.gateway.deliveries().count == 1 })
      let (status, body) = try await world.query(
        ##"[{"kinds":[1],"#p":["\##(Keys.account.publicKeyHex)"]}]"##, key: Keys.account)
      #expect(status == 200)
      let ids = try JSONReader().read(body).arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue }
      #expect(ids == [mention.id])
    }
  }

  /// nostr-relay keeps its events in SQLite, so it can be restarted in the middle of a burst: the
  /// service reconnects and its `since` (cursor − 120 s) picks up what it missed.
  @Test func theUpstreamRestartedMidBurstLosesNothingAndWakesEachOnce() async throws {
    try await ServiceWorld.following(.nostrRelay) { world, relay in
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      #expect(
        await Polling.eventually(within: .seconds(10)) {
          world.service.metrics.openSubscriptions(relay.url) > 0
        })
      var published: [String] = []
      for half in 0..<2 {
        let connection = try await RelayConnection.connect(to: relay.url, deadline: .now + .seconds(10))
        for index in 0..<250 {
          let event = ServiceWorld.mention(content: "burst \(half) \(index)")
          let result = try await connection.publish(event, deadline: .now + .seconds(10))
          #expect(result.accepted, "\(result.message)")
          published.append(event.id)
        }
        await connection.close()
        if half == 0 {
          await relay.terminate()
          try await relay.start()
        }
      }
      #expect(await Polling.eventually(within: .seconds(60)) { world.gateway.deliveries().count >= 500 })
      let wakes = try world.service.relay.outbox.wakes()
      #expect(wakes.count == 500)
      #expect(Set(wakes.map(\.candidate.eventID)) == Set(published))
      #expect(world.gateway.deliveries().count == 500)
    }
  }
}
