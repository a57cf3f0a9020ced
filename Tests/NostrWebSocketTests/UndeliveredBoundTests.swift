import Foundation
import NostrPushTestSupport
import NostrWebSocket
import Testing

/// A hostile relay is bounded on the client side too; past 10 000
/// messages nobody took, the connection closes with `protocol_violation`.
@Suite(.timeLimit(.minutes(1))) struct UndeliveredBoundTests {
  @Test func closesPastTenThousandUndeliveredMessages() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let transport = try await PosixWebSocketTransport.connect(
        to: try WebSocketURL(scenario.url), deadline: .now + .seconds(10))
      // Each REQ (the same subscription id, replaced) is answered with three EVENTs and an EOSE,
      // none of which is received: 2 600 of them are 10 400 messages, the AUTH challenge aside.
      let request = Array(#"["REQ","s",{"kinds":[9]}]"#.utf8)
      for _ in 0..<2_600 { try await transport.send(request) }
      let ended = await Polling.eventually(within: .seconds(30), every: .milliseconds(10)) {
        transport.endedWith != nil
      }
      #expect(ended)
      #expect(transport.endedWith?.code == .protocolViolation)
      #expect(transport.endedWith?.message == "more than 10000 undelivered messages")
      await transport.close()
    }
  }

  @Test func keepsAConnectionWhoseMessagesAreTaken() async throws {
    try await withStarted(try await WebSocketScenario()) { scenario in
      let transport = try await PosixWebSocketTransport.connect(
        to: try WebSocketURL(scenario.url), deadline: .now + .seconds(10))
      let request = Array(#"["REQ","s",{"kinds":[9]}]"#.utf8)
      var received = 0
      for _ in 0..<2_600 {
        try await transport.send(request)
        for _ in 0..<4 {
          _ = try await transport.receive()
          received += 1
        }
      }
      #expect(received == 10_400)
      #expect(transport.endedWith == nil)
      await transport.close()
    }
  }
}
