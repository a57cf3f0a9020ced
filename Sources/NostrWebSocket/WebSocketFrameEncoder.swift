import NostrPushCore

/// Writes RFC 6455 frames: minimal length encoding, masked with a fresh key in the client role.
///
/// A text message over `maxFramePayloadBytes` goes out as a text frame and continuation frames of
/// at most that size; `maxMessageBytes` bounds what may be sent at all (the caller refuses
/// larger messages before anything is written).
package enum WebSocketFrameEncoder {
  /// The largest payload of one outgoing frame: 1 MiB.
  package static let maxFramePayloadBytes = 1024 * 1024
  /// The largest outgoing message: 4 MiB.
  package static let maxMessageBytes = 4 * 1024 * 1024

  /// One frame; masked with `mask` when given (the client role must give a fresh one).
  package static func frame(
    opcode: WebSocketOpcode, payload: some Collection<UInt8>, fin: Bool = true,
    mask: (UInt8, UInt8, UInt8, UInt8)? = nil
  ) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(payload.count + 14)
    output.append((fin ? 0x80 : 0) | opcode.rawValue)
    let maskBit: UInt8 = mask == nil ? 0 : 0x80
    let length = payload.count
    if length < 126 {
      output.append(maskBit | UInt8(length))
    } else if length <= 0xFFFF {
      output.append(maskBit | 126)
      output.append(UInt8(length >> 8))
      output.append(UInt8(length & 0xFF))
    } else {
      output.append(maskBit | 127)
      for shift in stride(from: 56, through: 0, by: -8) {
        output.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift)))
      }
    }
    guard let mask else {
      output.append(contentsOf: payload)
      return output
    }
    output.append(contentsOf: [mask.0, mask.1, mask.2, mask.3])
    var body = Array(payload)
    applyMask(mask, to: &body)
    output.append(contentsOf: body)
    return output
  }

  /// The frames of one text message in `role`: one FIN text frame, or a text frame and
  /// continuation frames of at most `maxFramePayloadBytes` each; each client frame has a fresh mask.
  package static func textMessage(
    _ payload: [UInt8], role: WebSocketRole,
    maxFramePayloadBytes: Int = WebSocketFrameEncoder.maxFramePayloadBytes
  ) -> [[UInt8]] {
    let step = max(1, maxFramePayloadBytes)
    var frames: [[UInt8]] = []
    var offset = 0
    repeat {
      let end = min(payload.count, offset + step)
      frames.append(
        frame(
          opcode: offset == 0 ? .text : .continuation, payload: payload[offset..<end],
          fin: end == payload.count,
          mask: role == .client ? freshMask() : nil))
      offset = end
    } while offset < payload.count
    return frames
  }

  /// A control frame (close, ping, pong) in `role`.
  package static func control(_ opcode: WebSocketOpcode, payload: [UInt8], role: WebSocketRole) -> [UInt8] {
    frame(
      opcode: opcode, payload: payload.prefix(WebSocketFrameDecoder.maxControlPayloadBytes),
      mask: role == .client ? freshMask() : nil)
  }

  /// A close frame with `code` and `reason` (cut to fit 125 bytes) in `role`.
  package static func close(code: UInt16, reason: String = "", role: WebSocketRole) -> [UInt8] {
    var payload = [UInt8(code >> 8), UInt8(code & 0xFF)]
    payload.append(
      contentsOf: UTF8Text.prefix(reason, maxBytes: WebSocketFrameDecoder.maxControlPayloadBytes - 2))
    return control(.close, payload: payload, role: role)
  }

  /// XORs `bytes` with the 4-byte `mask` (masking and unmasking are the same operation).
  package static func applyMask(_ mask: (UInt8, UInt8, UInt8, UInt8), to bytes: inout [UInt8]) {
    let key = [mask.0, mask.1, mask.2, mask.3]
    bytes.withUnsafeMutableBufferPointer { buffer in
      for index in buffer.indices { buffer[index] ^= key[index & 3] }
    }
  }

  /// Four fresh bytes from `SystemRandomNumberGenerator`.
  static func freshMask() -> (UInt8, UInt8, UInt8, UInt8) {
    var generator = SystemRandomNumberGenerator()
    let word = UInt32(truncatingIfNeeded: generator.next())
    return (UInt8(word >> 24), UInt8((word >> 16) & 0xFF), UInt8((word >> 8) & 0xFF), UInt8(word & 0xFF))
  }
}
