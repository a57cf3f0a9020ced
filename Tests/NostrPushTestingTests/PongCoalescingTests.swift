import NostrWebSocket
import Testing

@testable import NostrPushTesting

/// Pongs coalesce (only the latest unanswered ping is answered) and
/// control frames count in the 8 MiB outgoing queue, so a client flooding pings and never reading
/// costs one queued pong.
@Suite struct PongCoalescingTests {
  @Test func answersOnlyTheLatestUnansweredPing() {
    let socket = FixtureWebSocket()
    for payload in 0..<1_000 { #expect(socket.enqueuePong([UInt8(payload % 256), 7])) }
    #expect(socket.queue == [WebSocketFrameEncoder.control(.pong, payload: [231, 7], role: .server)])
    #expect(socket.queuedBytes == socket.queue[0].count)
  }

  @Test func neverReplacesAPongAlreadyBeingSent() {
    let socket = FixtureWebSocket()
    #expect(socket.enqueuePong([1]))
    socket.sentOfFirst = 1
    #expect(socket.enqueuePong([2]))
    #expect(socket.enqueuePong([3]))
    #expect(
      socket.queue == [
        WebSocketFrameEncoder.control(.pong, payload: [1], role: .server),
        WebSocketFrameEncoder.control(.pong, payload: [3], role: .server),
      ])
    socket.removeFirstFrame()
    #expect(socket.enqueuePong([4]))
    #expect(socket.queue == [WebSocketFrameEncoder.control(.pong, payload: [4], role: .server)])
  }

  @Test func countsAPongInTheQueueBound() {
    let socket = FixtureWebSocket()
    socket.enqueue([UInt8](repeating: 0, count: FixtureWebSocket.maxQueuedBytes - 10))
    // A pong that fits (2 header bytes + 8) is queued; a later one that passes the bound is
    // refused, and the connection is dropped.
    let fits = socket.enqueuePong([UInt8](repeating: 1, count: 8))
    #expect(fits)
    #expect(socket.queuedBytes == FixtureWebSocket.maxQueuedBytes)
    let past = socket.enqueuePong([UInt8](repeating: 1, count: 9))
    #expect(!past)
  }
}
