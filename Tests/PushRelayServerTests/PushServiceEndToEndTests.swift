import Foundation
import NostrEvent
import NostrHTTPServer
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushRelayServer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The core path over real sockets and files: a lease enrolled at the service, an event published
/// to an upstream relay the service follows, one wake at the gateway, and the event back from
/// `/query`.
@Suite struct PushServiceEndToEndTests {
  @Test func publishedMentionWakesOnceAndIsServedByQuery() async throws {
    let world = try await ServiceWorld()
    do {
      let enrolled = try await world.enroll(try world.mentionLease())
      #expect(enrolled.accepted, "\(enrolled.message)")
      #expect(
        await Polling.eventually(within: .seconds(5)) {
          world.service.metrics.openSubscriptions(world.upstreamURL) > 0
        })
      let mention = ServiceWorld.mention()
      #expect(try await world.publishUpstream(mention).accepted)
      #expect(await Polling.eventually(within: .seconds(10)) { world.gateway.deliveries().count == 1 })
      let (status, body) = try await world.query(
        ##"[{"kinds":[1],"#p":["\##(Keys.account.publicKeyHex)"]}]"##, key: Keys.account)
      #expect(status == 200)
      let ids = try JSONReader().read(body).arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue }
      #expect(ids == [mention.id])
      // A second publish of the same event (a relay re-sending it) does not wake again.
      _ = try await world.publishUpstream(mention)
      let other = ServiceWorld.mention(content: "second")
      _ = try await world.publishUpstream(other)
      #expect(await Polling.eventually(within: .seconds(10)) { world.gateway.deliveries().count == 2 })
      #expect(world.gateway.deliveries().count == 2)
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  /// The upstream's NIP-11 caps stored answers at 20 events, and 70 (one a second, the last 70
  /// seconds) arrive while the service is down: the restarted service pages back (`until`) until
  /// it has every one.
  @Test func eventsPublishedWhileTheServiceWasDownWakeAfterItsRestart() async throws {
    let world = try await ServiceWorld(
      upstreamInformation: #"{"name":"capped","limitation":{"max_limit":20}}"#)
    do {
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      #expect(
        await Polling.eventually(within: .seconds(5)) {
          world.service.metrics.openSubscriptions(world.upstreamURL) > 0
        })
      // Let the cursor be written (the plan loop saves it once every REQ had its EOSE).
      #expect(
        await Polling.eventually(within: .seconds(5)) {
          ((try? world.service.events.cursor(upstream: world.upstreamURL)) ?? nil) != nil
        })
      await world.service.stop()
      var missed: [Event] = []
      let now = Int64(Date().timeIntervalSince1970)
      for index in 0..<70 {
        let event = ServiceWorld.mention(content: "while you were away \(index)", at: now - Int64(index))
        #expect(try await world.publishUpstream(event).accepted)
        missed.append(event)
      }
      world.service = try await PushService.start(world.configuration)
      let all = await Polling.eventually(within: .seconds(15)) { world.gateway.deliveries().count == 70 }
      #expect(all, "\(world.gateway.deliveries().count) delivered")
      for event in missed { #expect(try world.service.events.contains(id: event.id)) }
      #expect(world.gateway.deliveries().count == 70)
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}

/// What the service's own WebSocket takes and refuses.
@Suite struct PushServiceWebSocketTests {
  @Test func anEventThatIsNotALeaseIsBlockedWithWhereToPublish() async throws {
    let world = try await ServiceWorld()
    do {
      let connection = try await RelayConnection.connect(
        to: world.webSocketURL, key: Keys.alice, deadline: .now + .seconds(5))
      let result = try await connection.publish(ServiceWorld.mention(), deadline: .now + .seconds(5))
      await connection.close()
      #expect(!result.accepted)
      #expect(result.message == "blocked: push relay: publish to \(world.upstreamURL)")
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test func aRequestForAnotherAuthorsLeasesIsRefused() async throws {
    let world = try await ServiceWorld()
    do {
      let connection = try await RelayConnection.connect(
        to: world.webSocketURL, key: Keys.alice, deadline: .now + .seconds(5))
      await #expect(throws: RelayConnectionError.self) {
        _ = try await connection.query(
          [Filter(authors: [Keys.account.publicKeyHex], kinds: [30350])], deadline: .now + .seconds(5))
      }
      let own = try await connection.query(
        [Filter(authors: [Keys.alice.publicKeyHex], kinds: [30350])], deadline: .now + .seconds(5))
      #expect(own.isEmpty)
      await connection.close()
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test func theEnrolledLeaseIsReadBackByItsAuthor() async throws {
    let world = try await ServiceWorld()
    do {
      let lease = try world.mentionLease()
      #expect(try await world.enroll(lease).accepted)
      let connection = try await RelayConnection.connect(
        to: world.webSocketURL, key: Keys.account, deadline: .now + .seconds(5))
      let read = try await connection.query(
        [Filter(authors: [Keys.account.publicKeyHex], kinds: [30350])], deadline: .now + .seconds(5))
      await connection.close()
      #expect(read.map(\.id) == [lease.id])
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}

/// `POST /query`: who may ask and what they see.
@Suite struct PushServiceQueryTests {
  @Test func aKeyWithoutALeaseGets401() async throws {
    let world = try await ServiceWorld()
    do {
      let (status, _) = try await world.query(#"[{"kinds":[1]}]"#, key: Keys.carol)
      #expect(status == 401)
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test func aGiftWrapForAnotherAccountIsNeverReturned() async throws {
    let world = try await ServiceWorld()
    do {
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      let carols = try world.lease(for: Keys.carol, kinds: [1059], token: "ccddee")
      #expect(try await world.enroll(carols, as: Keys.carol).accepted)
      let now = Int64(Date().timeIntervalSince1970)
      let forCarol = try UnsignedEvent(
        pubkey: Keys.alice.publicKeyHex, createdAt: now - 3600, kind: 1059,
        tags: [["p", Keys.carol.publicKeyHex]], content: "sealed"
      ).signed(with: Keys.alice)
      let line = JSONWriter.bytes(forCarol.jsonValue) + [UInt8(ascii: "\n")]
      let (posted, _) = try await LoopbackFetch.send(world.adminURL + "/events", method: "POST", body: line)
      #expect(posted == 200)
      #expect(try world.service.events.contains(id: forCarol.id))
      let (status, body) = try await world.query(#"[{"kinds":[1059]}]"#, key: Keys.account)
      #expect(status == 200)
      #expect(body == Array("[]".utf8))
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test func theThirtyFirstQueryInAMinuteGets429() async throws {
    let world = try await ServiceWorld()
    do {
      // The service's clock stopped at now, so that the minute cannot turn during the loop.
      await world.service.stop()
      world.service = try await PushService.start(
        world.configuration, clock: .fixed(Int64(Date().timeIntervalSince1970)))
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      var statuses: [Int] = []
      for _ in 0..<31 {
        statuses.append(try await world.query(#"[{"kinds":[1]}]"#, key: Keys.account).status)
      }
      #expect(statuses == Array(repeating: 200, count: 30) + [429])
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}

/// The trusted feeds on the admin listener.
@Suite struct PushServiceFeedTests {
  @Test func aPostedEventWakesAndABadOneIsDroppedAndCounted() async throws {
    let world = try await ServiceWorld()
    do {
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      let good = ServiceWorld.mention(content: "from a hook")
      var forged = try #require(ServiceWorld.mention(content: "forged").jsonValue.objectValue)
      forged["content"] = .string("changed after signing")
      let body = JSONWriter.bytes(good.jsonValue) + [10] + JSONWriter.bytes(.object(forged)) + [10]
      let (status, answer) = try await LoopbackFetch.send(
        world.adminURL + "/events", method: "POST", body: body)
      #expect(status == 200)
      let lines = String(decoding: answer, as: UTF8.self).split(separator: "\n")
      #expect(lines.count == 2)
      #expect(lines.first?.contains(#""accepted":true"#) == true)
      #expect(lines.last?.contains(#""accepted":false"#) == true)
      #expect(await Polling.eventually(within: .seconds(10)) { world.gateway.deliveries().count == 1 })
      #expect(world.service.metrics.events(.httpFeed, .rejected) == 1)
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test func aRouterShapedWebSocketFeedDeliversAWake() async throws {
    let world = try await ServiceWorld()
    do {
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      let connection = try await RelayConnection.connect(
        to: "ws://127.0.0.1:\(world.service.adminPort)/", deadline: .now + .seconds(5))
      let result = try await connection.publish(
        ServiceWorld.mention(content: "routed"), deadline: .now + .seconds(5))
      await connection.close()
      #expect(result.accepted)
      #expect(await Polling.eventually(within: .seconds(10)) { world.gateway.deliveries().count == 1 })
      #expect(world.service.metrics.events(.webSocketFeed, .accepted) == 1)
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}
