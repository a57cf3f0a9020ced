// libFuzzer harness for the RFC 6455 frame decoder and message assembler (module
// NostrWebSocket), built twice by Scripts/fuzz: `wsframe-client` in the client role and
// `wsframe-server` (`-D FUZZ_SERVER_ROLE`) in the server role, where frames arrive masked.
//
// The first byte sets the chunk size the rest is fed in (1–256 bytes), so incremental decoding
// is exercised at every split. Property: the decoder never crashes or hangs; once it reports a
// violation it keeps reporting it; every frame it returns re-encodes to exactly the bytes it
// consumed (lengths are minimal; in the server role the mask is the one sent); control frames are
// FIN and ≤ 125 bytes; the assembler's text messages are valid UTF-8 within its bound.
import NostrWebSocket

#if FUZZ_SERVER_ROLE
let role = WebSocketRole.server
#else
let role = WebSocketRole.client
#endif

/// The frame's bytes as the encoder writes them: in the server role with the mask read from
/// `original` (the four bytes before the payload).
func reencoded(_ frame: WebSocketFrame, original: [UInt8]) -> [UInt8] {
  guard role == .server else {
    return WebSocketFrameEncoder.frame(opcode: frame.opcode, payload: frame.payload, fin: frame.fin)
  }
  let maskStart = original.count - frame.payload.count - 4
  let mask = (original[maskStart], original[maskStart + 1], original[maskStart + 2], original[maskStart + 3])
  return WebSocketFrameEncoder.frame(opcode: frame.opcode, payload: frame.payload, fin: frame.fin, mask: mask)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data, size > 0 else { return 0 }
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  let chunk = Int(input[0]) + 1
  let bytes = Array(input.dropFirst())
  var decoder = WebSocketFrameDecoder(role: role, maxFramePayloadBytes: 4096)
  var assembler = WebSocketMessageAssembler(maxMessageBytes: 8192)
  var consumed = 0
  var fed = 0
  var failed = false
  while fed < bytes.count {
    let end = min(bytes.count, fed + chunk)
    decoder.append(bytes[fed..<end])
    fed = end
    decoding: while true {
      let before = consumed
      switch decoder.next() {
      case .needMore: break decoding
      case .violation(let violation):
        guard [1002, 1007, 1009].contains(violation.closeCode) else {
          fatalError("close code \(violation.closeCode)")
        }
        failed = true
        guard case .violation = decoder.next() else { fatalError("the decoder recovered after a violation") }
        break decoding
      case .frame(let frame):
        if failed { fatalError("a frame after a violation") }
        consumed = fed - decoder.bufferedCount
        let original = Array(bytes[before..<consumed])
        guard reencoded(frame, original: original) == original else {
          fatalError("frame does not re-encode to its bytes")
        }
        if frame.opcode.isControl, !frame.fin || frame.payload.count > 125 {
          fatalError("bad control frame accepted")
        }
        if case .text(let message) = assembler.take(frame) {
          guard message.count <= 8192, String(validating: message, as: UTF8.self) != nil else {
            fatalError("assembler passed a bad text message")
          }
        }
      }
    }
    if failed { break }
  }
  return 0
}
