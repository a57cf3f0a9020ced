import NostrPushCore

/// Cuts RFC 6455 frames out of received bytes: a pure decoder, no I/O.
///
/// Feed it bytes with `append(_:)` and take frames with `next()` until it answers `.needMore`.
/// Every rule that can be checked on a single frame is checked here, the frame header before any
/// payload is buffered (so an oversized frame is refused when its header arrives); the rules that
/// span frames (fragments, message size, UTF-8) belong to `WebSocketMessageAssembler`. After a
/// violation the decoder keeps answering the same violation.
package struct WebSocketFrameDecoder: Sendable {
  /// The default largest payload of one frame: 1 MiB.
  package static let defaultMaxFramePayloadBytes = 1024 * 1024
  /// The largest payload of a control frame (RFC 6455 §5.5).
  package static let maxControlPayloadBytes = 125

  /// What `next()` found.
  package enum Outcome: Sendable, Hashable {
    /// A complete frame.
    case frame(WebSocketFrame)
    /// The buffered bytes do not hold a complete frame yet.
    case needMore
    /// A broken rule; the connection must be closed with its close code.
    case violation(WebSocketViolation)
  }

  /// The end this decoder serves: a client refuses masked frames, a server unmasked ones.
  package let role: WebSocketRole
  /// The largest payload accepted in one frame (seen in the header): past it, 1009.
  package let maxFramePayloadBytes: Int

  private var buffer: [UInt8] = []
  private var start = 0
  private var failure: WebSocketViolation?

  /// Creates a decoder for `role` with the given frame payload bound.
  package init(
    role: WebSocketRole, maxFramePayloadBytes: Int = WebSocketFrameDecoder.defaultMaxFramePayloadBytes
  ) {
    self.role = role
    self.maxFramePayloadBytes = maxFramePayloadBytes
  }

  /// The number of received bytes not yet taken as frames.
  package var bufferedCount: Int { buffer.count - start }

  /// Adds received bytes.
  package mutating func append(_ bytes: some Sequence<UInt8>) {
    if start > 0, start >= buffer.count / 2 {
      buffer.removeSubrange(0..<start)
      start = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// The next complete frame, `.needMore`, or the violation that ends the connection.
  package mutating func next() -> Outcome {
    if let failure { return .violation(failure) }
    let outcome = decode()
    if case .violation(let violation) = outcome { failure = violation }
    return outcome
  }

  private mutating func decode() -> Outcome {
    let available = buffer.count - start
    guard available >= 2 else { return .needMore }
    let first = buffer[start]
    let second = buffer[start + 1]
    let fin = first & 0x80 != 0
    guard first & 0x70 == 0 else { return violation(WebSocketCloseCode.protocolError, "reserved bit set") }
    let opcode = WebSocketOpcode(rawValue: first & 0x0F)
    guard opcode.isDefined else {
      return violation(WebSocketCloseCode.protocolError, "reserved opcode \(opcode.rawValue)")
    }
    let masked = second & 0x80 != 0
    switch role {
    case .client where masked:
      return violation(WebSocketCloseCode.protocolError, "masked frame from the server")
    case .server where !masked:
      return violation(WebSocketCloseCode.protocolError, "unmasked frame from the client")
    default: break
    }
    var headerLength = 2
    var length = UInt64(second & 0x7F)
    if length == 126 {
      guard available >= 4 else { return .needMore }
      length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
      headerLength = 4
      guard length >= 126 else { return violation(WebSocketCloseCode.protocolError, "non-minimal length") }
    } else if length == 127 {
      guard available >= 10 else { return .needMore }
      length = 0
      for index in 0..<8 { length = length << 8 | UInt64(buffer[start + 2 + index]) }
      headerLength = 10
      guard length >> 63 == 0 else {
        return violation(WebSocketCloseCode.protocolError, "length top bit set")
      }
      guard length > 0xFFFF else { return violation(WebSocketCloseCode.protocolError, "non-minimal length") }
    }
    if opcode.isControl {
      guard fin else { return violation(WebSocketCloseCode.protocolError, "fragmented control frame") }
      guard length <= UInt64(Self.maxControlPayloadBytes) else {
        return violation(WebSocketCloseCode.protocolError, "control frame over 125 bytes")
      }
    }
    guard length <= UInt64(maxFramePayloadBytes) else {
      return violation(
        WebSocketCloseCode.messageTooBig,
        "frame of \(length) bytes over the \(maxFramePayloadBytes)-byte limit")
    }
    let maskLength = masked ? 4 : 0
    let total = headerLength + maskLength + Int(length)
    guard available >= total else { return .needMore }
    let payloadStart = start + headerLength + maskLength
    var payload = Array(buffer[payloadStart..<(start + total)])
    if masked {
      let maskStart = start + headerLength
      let mask = (buffer[maskStart], buffer[maskStart + 1], buffer[maskStart + 2], buffer[maskStart + 3])
      WebSocketFrameEncoder.applyMask(mask, to: &payload)
    }
    start += total
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
      start = 0
    }
    if opcode == .close, let problem = Self.closePayloadProblem(payload) { return .violation(problem) }
    return .frame(WebSocketFrame(fin: fin, opcode: opcode, payload: payload))
  }

  private func violation(_ code: UInt16, _ message: String) -> Outcome {
    .violation(WebSocketViolation(closeCode: code, message: message))
  }

  /// What is wrong with a close frame's payload: 1 byte, a code not allowed, a reason not UTF-8.
  static func closePayloadProblem(_ payload: [UInt8]) -> WebSocketViolation? {
    if payload.isEmpty { return nil }
    guard payload.count >= 2 else {
      return WebSocketViolation(
        closeCode: WebSocketCloseCode.protocolError, message: "close payload of 1 byte")
    }
    let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
    guard WebSocketCloseCode.isValidReceived(code) else {
      return WebSocketViolation(
        closeCode: WebSocketCloseCode.protocolError, message: "close code \(code) not allowed")
    }
    guard UTF8Text.isValid(payload[2...]) else {
      return WebSocketViolation(
        closeCode: WebSocketCloseCode.invalidPayload, message: "close reason not UTF-8")
    }
    return nil
  }
}
