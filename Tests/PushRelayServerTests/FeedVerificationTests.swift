import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NostrPushTestSupport
import NostrPushTesting
import NostrWebSocket
import PushRelayServer
import Testing

/// A trusted feed's frame that fails verification is dropped — no wake, not stored — and counted
/// where an operator sees it: the admin listener's `/metrics`.
@Suite struct FeedVerificationTests {
  /// The `/metrics` line counting events from `source` with `result`.
  static func counter(_ metrics: String, source: String, result: String) -> Int? {
    let prefix = "nostr_push_events_total{source=\"\(source)\",result=\"\(result)\"} "
    return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap {
      Int($0.dropFirst(prefix.count))
    }
  }

  @Test func aForgedRouterFrameIsDroppedAndCountedInMetrics() async throws {
    let world = try await ServiceWorld()
    do {
      #expect(try await world.enroll(try world.mentionLease()).accepted)
      var forged = try #require(ServiceWorld.mention(content: "as signed").jsonValue.objectValue)
      forged["content"] = .string("changed after signing")
      let forgedID = try #require(forged["id"]?.stringValue)
      let good = ServiceWorld.mention(content: "routed")
      // A raw WebSocket, as `strfry router` writes: the package's client refuses to send a
      // forged event, so the frames are written as they are.
      let transport = try await openWebSocket(
        to: try WebSocketURL("ws://127.0.0.1:\(world.service.adminPort)/"), deadline: .now + .seconds(5))
      var answers: [String] = []
      for frame in [JSONValue.object(forged), good.jsonValue] {
        try await transport.send(JSONWriter.bytes(.array([.string("EVENT"), frame])))
        answers.append(String(decoding: try await transport.receive(), as: UTF8.self))
      }
      await transport.close(by: .now + .seconds(1))
      #expect(answers[0].hasPrefix(#"["OK","\#(forgedID)",false,"invalid: "#), "\(answers[0])")
      #expect(answers[1] == #"["OK","\#(good.id)",true,""]"#, "\(answers[1])")
      #expect(await Polling.eventually(within: .seconds(10)) { world.gateway.deliveries().count == 1 })
      #expect(try !world.service.events.contains(id: forgedID))
      let metrics = String(
        decoding: try await LoopbackFetch.send(world.adminURL + "/metrics").body, as: UTF8.self)
      #expect(Self.counter(metrics, source: "websocket_feed", result: "rejected") == 1, "\(metrics)")
      #expect(Self.counter(metrics, source: "websocket_feed", result: "accepted") == 1, "\(metrics)")
      #expect(world.gateway.deliveries().count == 1)
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }

  @Test func aForgedPostedLineIsCountedInMetrics() async throws {
    let world = try await ServiceWorld()
    do {
      var forged = try #require(ServiceWorld.mention(content: "as signed").jsonValue.objectValue)
      forged["sig"] = .string(ServiceWorld.mention(content: "another").sig)
      let body = JSONWriter.bytes(.object(forged)) + [UInt8(ascii: "\n")]
      let (status, answer) = try await LoopbackFetch.send(
        world.adminURL + "/events", method: "POST", body: body)
      #expect(status == 200)
      #expect(String(decoding: answer, as: UTF8.self).contains(#""accepted":false"#))
      let metrics = String(
        decoding: try await LoopbackFetch.send(world.adminURL + "/metrics").body, as: UTF8.self)
      #expect(Self.counter(metrics, source: "http_feed", result: "rejected") == 1, "\(metrics)")
    } catch {
      await world.stop()
      throw error
    }
    await world.stop()
  }
}
