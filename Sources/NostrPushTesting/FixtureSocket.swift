/// One client connection as the connection loop sees it: the bytes that have arrived, the answer
/// being sent, and the deadline that ends the current phase.
///
/// Owned and touched by the loop's thread only.
final class FixtureSocket {
  /// What the connection is doing.
  enum Phase {
    /// Waiting for (the rest of) a request.
    case reading
    /// A delay fault holds the answer until the instant given.
    case holding(until: ContinuousClock.Instant)
    /// Sending the answer; the connection is dropped if it is not all sent by the deadline.
    case writing(deadline: ContinuousClock.Instant)
    /// Upgraded: WebSocket frames both ways (`webSocket` holds their state).
    case webSocket
  }

  /// The socket.
  let descriptor: Int32
  /// Received bytes not yet taken by the parser.
  var buffer: [UInt8] = []
  /// Cuts requests out of `buffer`.
  var parser: HTTPRequestParser
  /// The current phase.
  var phase = Phase.reading
  /// When a request whose first byte has arrived must be whole (nil while idle).
  var requestDeadline: ContinuousClock.Instant?
  /// When an idle kept-alive connection is closed.
  var idleDeadline: ContinuousClock.Instant
  /// The answer being held or sent.
  var outbound: OutboundResponse?
  /// How many of `outbound.bytes` have been sent.
  var sentBytes = 0
  /// How many of `outbound.paddingBytes` have been sent.
  var sentPadding = 0
  /// The frame state once upgraded.
  var webSocket: FixtureWebSocket?

  /// Creates the state of a just-accepted connection.
  init(descriptor: Int32, parser: HTTPRequestParser, idleDeadline: ContinuousClock.Instant) {
    self.descriptor = descriptor
    self.parser = parser
    self.idleDeadline = idleDeadline
  }

  /// The instant at which the loop must look at this connection even if nothing happens on it.
  var deadline: ContinuousClock.Instant {
    switch phase {
    case .reading: requestDeadline ?? idleDeadline
    case .holding(let until): until
    case .writing(let deadline): deadline
    case .webSocket: webSocket?.deadline ?? idleDeadline
    }
  }

  /// Whether every byte of the answer has been sent.
  var answerSent: Bool {
    guard let outbound else { return true }
    return sentBytes >= outbound.bytes.count && sentPadding >= outbound.paddingBytes
  }

  /// Sets `response` as the answer to send next.
  func prepare(_ response: OutboundResponse) {
    outbound = response
    sentBytes = 0
    sentPadding = 0
  }
}
