import NostrWebSocket

/// The frame-level state of one upgraded connection: decoder, assembler, outgoing frames and
/// the deadlines of `Docs/TestingWithRelayFixture.md`.
///
/// Owned and touched by the loop's thread only; the NIP-01 state is `session`.
final class FixtureWebSocket {
  /// The most connections upgraded at once (more get 503).
  static let maxUpgraded = 64
  /// The largest client message, reassembled (1 MiB; past it, close 1009).
  static let maxClientMessageBytes = 1024 * 1024
  /// How long a frame may take to arrive whole after its first byte (then close 1008).
  static let frameTimeout: Duration = .seconds(10)
  /// How long a connection may stay silent (then close 1001).
  static let idleTimeout: Duration = .seconds(300)
  /// How long input is discarded after our close frame before the socket is closed.
  static let closeLinger: Duration = .seconds(1)
  /// The most bytes queued for a client that does not read (past it the connection is dropped).
  static let maxQueuedBytes = 8 * 1024 * 1024

  var decoder = WebSocketFrameDecoder(role: .server)
  var assembler = WebSocketMessageAssembler(maxMessageBytes: FixtureWebSocket.maxClientMessageBytes)
  var session = WebSocketSessionState()
  /// Frames to send; the first may be partly sent.
  var queue: [[UInt8]] = []
  var queuedBytes = 0
  var sentOfFirst = 0
  /// Where in `queue` the pong not yet started sits: a later ping replaces it (only the latest
  /// unanswered ping is answered), so a client that floods pings costs one queued pong.
  var pongIndex: Int?
  /// When a partial frame's first byte arrived.
  var frameStarted: ContinuousClock.Instant?
  var lastHeard = ContinuousClock.now
  /// When our close frame was queued: input is discarded, the socket closes within `closeLinger`.
  var closingSince: ContinuousClock.Instant?
  /// Close the socket once the queue is sent (after answering the client's close, or a fault).
  var closeWhenFlushed = false
  /// Replies a delay fault holds, with the instant they are released; input waits behind them.
  var held:
    (
      until: ContinuousClock.Instant, replies: [[UInt8]], fault: RelayFault.Action?,
      broadcast: RelayFixtureData.Entry?
    )?

  /// When the loop must look at this connection even if nothing happens on it.
  var deadline: ContinuousClock.Instant {
    if let closingSince { return closingSince.advanced(by: Self.closeLinger) }
    if let held { return held.until }
    let idle = lastHeard.advanced(by: Self.idleTimeout)
    guard let frameStarted else { return idle }
    return min(idle, frameStarted.advanced(by: Self.frameTimeout))
  }

  /// Queues one text message (in frames of ≤ 1 MiB); false when the queue would pass its bound.
  func enqueueText(_ message: [UInt8]) -> Bool {
    guard closingSince == nil else { return true }
    for frame in WebSocketFrameEncoder.textMessage(message, role: .server) { enqueue(frame) }
    return queuedBytes <= Self.maxQueuedBytes
  }

  /// Queues the pong for a ping with `payload`, replacing a queued pong not yet started; false when
  /// the queue (control frames included) would pass its bound.
  func enqueuePong(_ payload: [UInt8]) -> Bool {
    let pong = WebSocketFrameEncoder.control(.pong, payload: payload, role: .server)
    if let index = pongIndex, index > 0 || sentOfFirst == 0 {
      queuedBytes += pong.count - queue[index].count
      queue[index] = pong
    } else {
      enqueue(pong)
      pongIndex = queue.count - 1
    }
    return queuedBytes <= Self.maxQueuedBytes
  }

  /// Takes the first frame off the queue once it is sent.
  func removeFirstFrame() {
    queuedBytes -= queue.removeFirst().count
    sentOfFirst = 0
    if let index = pongIndex { pongIndex = index > 0 ? index - 1 : nil }
  }

  /// Queues a frame as it is.
  func enqueue(_ frame: [UInt8]) {
    queue.append(frame)
    queuedBytes += frame.count
  }

  /// Queues our close frame; input is discarded from now on.
  func startClose(code: UInt16, reason: String) {
    guard closingSince == nil else { return }
    enqueue(WebSocketFrameEncoder.close(code: code, reason: reason, role: .server))
    closingSince = ContinuousClock.now
  }
}
