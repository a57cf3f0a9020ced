/// Which end of a WebSocket connection a codec serves; it decides the masking rules.
///
/// A client masks every frame it sends and refuses masked frames; a server sends unmasked
/// frames and refuses unmasked ones (RFC 6455 §5.1).
package enum WebSocketRole: Sendable, Hashable {
  /// The connecting side.
  case client
  /// The accepting side (the fixture relay).
  case server
}

/// A WebSocket frame opcode (RFC 6455 §5.2), kept as its 4-bit value.
package struct WebSocketOpcode: RawRepresentable, Hashable, Sendable {
  /// The 4-bit value.
  package let rawValue: UInt8
  /// Creates an opcode from its 4-bit value.
  package init(rawValue: UInt8) { self.rawValue = rawValue }

  /// A continuation of a fragmented message.
  package static let continuation = WebSocketOpcode(rawValue: 0x0)
  /// The first frame of a UTF-8 text message.
  package static let text = WebSocketOpcode(rawValue: 0x1)
  /// The first frame of a binary message.
  package static let binary = WebSocketOpcode(rawValue: 0x2)
  /// A close frame.
  package static let close = WebSocketOpcode(rawValue: 0x8)
  /// A ping.
  package static let ping = WebSocketOpcode(rawValue: 0x9)
  /// A pong.
  package static let pong = WebSocketOpcode(rawValue: 0xA)

  /// Whether this is a control opcode (close, ping, pong).
  package var isControl: Bool { rawValue & 0x8 != 0 }
  /// Whether RFC 6455 defines this opcode (3–7 and 11–15 are reserved).
  package var isDefined: Bool { [0, 1, 2, 8, 9, 10].contains(rawValue) }
}

/// One frame as decoded: its FIN bit, opcode and unmasked payload.
package struct WebSocketFrame: Sendable, Hashable {
  /// Whether this is the last frame of its message.
  package var fin: Bool
  /// The opcode.
  package var opcode: WebSocketOpcode
  /// The payload, already unmasked.
  package var payload: [UInt8]

  /// Creates a frame.
  package init(fin: Bool, opcode: WebSocketOpcode, payload: [UInt8]) {
    self.fin = fin
    self.opcode = opcode
    self.payload = payload
  }
}

/// A broken rule of RFC 6455, with the close code the receiving end sends before it closes.
///
/// A value, not an error: the codec reports it and the connection decides what to do (send the
/// close frame, then close the socket).
package struct WebSocketViolation: Sendable, Hashable, CustomStringConvertible {
  /// The close code to send: 1002 (protocol error), 1003 (unsupported data), 1007 (not UTF-8),
  /// 1008 (policy), 1009 (too big).
  package let closeCode: UInt16
  /// What was wrong, for logs and error messages.
  package let message: String

  /// Creates a violation.
  package init(closeCode: UInt16, message: String) {
    self.closeCode = closeCode
    self.message = message
  }

  /// Close code and message.
  package var description: String { "\(closeCode): \(message)" }

  /// The error a client reports for it: `message_too_large` for 1009, else `protocol_violation`.
  package var error: RelayConnectionError {
    RelayConnectionError(
      code: closeCode == WebSocketCloseCode.messageTooBig ? .messageTooLarge : .protocolViolation,
      message: "\(message) (close \(closeCode))")
  }
}

/// The close codes this module sends or checks (RFC 6455 §7.4).
package enum WebSocketCloseCode {
  /// Normal closure.
  package static let normal: UInt16 = 1000
  /// The endpoint is going away (the fixture's idle timeout).
  package static let goingAway: UInt16 = 1001
  /// A protocol error.
  package static let protocolError: UInt16 = 1002
  /// A data type the endpoint does not accept (binary messages here).
  package static let unsupportedData: UInt16 = 1003
  /// The connection ended without a close frame (never sent, only reported).
  package static let abnormal: UInt16 = 1006
  /// A text message or close reason that is not UTF-8.
  package static let invalidPayload: UInt16 = 1007
  /// A policy violation (the fixture's frame timeout).
  package static let policyViolation: UInt16 = 1008
  /// A frame or message over the receiver's limit.
  package static let messageTooBig: UInt16 = 1009

  /// Whether `code` may appear in a received close frame: 1000–1003, 1007–1014, 3000–4999.
  package static func isValidReceived(_ code: UInt16) -> Bool {
    (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code)
  }
}
