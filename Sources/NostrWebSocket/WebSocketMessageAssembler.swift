import NostrPushCore

/// Joins decoded frames into messages and checks the rules that span frames.
///
/// Separate from the frame decoder so each can be tested (and fuzzed) alone: a continuation with
/// no message open or a data frame while one is open is 1002, a message past `maxMessageBytes`
/// 1009, a text message that is not UTF-8 once whole 1007, a binary message 1003 (Nostr speaks
/// text only). Control frames pass through between fragments.
package struct WebSocketMessageAssembler: Sendable {
  /// The default largest message, reassembled: 4 MiB (the client's bound).
  package static let defaultMaxMessageBytes = 4 * 1024 * 1024

  /// What one frame amounted to.
  package enum Outcome: Sendable, Hashable {
    /// A fragment was absorbed; the message is not whole yet.
    case partial
    /// A whole text message, UTF-8 checked.
    case text([UInt8])
    /// A ping with its payload (answer with a pong carrying it).
    case ping([UInt8])
    /// A pong (ignored by both ends here).
    case pong([UInt8])
    /// A close frame: its code (nil when the payload was empty) and reason.
    case close(code: UInt16?, reason: String)
    /// A broken rule; the connection must be closed with its close code.
    case violation(WebSocketViolation)
  }

  /// The largest message accepted, reassembled.
  package let maxMessageBytes: Int

  private var open: [UInt8]?

  /// Creates an assembler with the given message bound.
  package init(maxMessageBytes: Int = WebSocketMessageAssembler.defaultMaxMessageBytes) {
    self.maxMessageBytes = maxMessageBytes
  }

  /// Whether a fragmented message has begun and not ended.
  package var hasOpenMessage: Bool { open != nil }

  /// Takes one decoded frame.
  package mutating func take(_ frame: WebSocketFrame) -> Outcome {
    switch frame.opcode {
    case .ping: return .ping(frame.payload)
    case .pong: return .pong(frame.payload)
    case .close:
      guard frame.payload.count >= 2 else { return .close(code: nil, reason: "") }
      let code = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
      return .close(code: code, reason: String(decoding: frame.payload[2...], as: UTF8.self))
    case .continuation:
      guard var message = open else {
        return violation(WebSocketCloseCode.protocolError, "continuation frame with no message open")
      }
      guard message.count + frame.payload.count <= maxMessageBytes else {
        open = nil
        return violation(WebSocketCloseCode.messageTooBig, "message over the \(maxMessageBytes)-byte limit")
      }
      open = nil
      message.append(contentsOf: frame.payload)
      guard frame.fin else {
        open = message
        return .partial
      }
      return finish(message)
    case .binary:
      return violation(WebSocketCloseCode.unsupportedData, "binary message")
    default:
      guard open == nil else {
        return violation(WebSocketCloseCode.protocolError, "data frame while a message is open")
      }
      guard frame.payload.count <= maxMessageBytes else {
        return violation(WebSocketCloseCode.messageTooBig, "message over the \(maxMessageBytes)-byte limit")
      }
      guard frame.fin else {
        open = frame.payload
        return .partial
      }
      return finish(frame.payload)
    }
  }

  private func finish(_ message: [UInt8]) -> Outcome {
    guard UTF8Text.isValid(message) else {
      return violation(WebSocketCloseCode.invalidPayload, "text message not UTF-8")
    }
    return .text(message)
  }

  private func violation(_ code: UInt16, _ message: String) -> Outcome {
    .violation(WebSocketViolation(closeCode: code, message: message))
  }
}
