import Foundation
import Testing

@testable import NostrWebSocket

@Suite struct SHA1Tests {
  @Test(arguments: [
    ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
    ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
  ])
  func hashesTheFIPSVectors(message: String, digest: String) {
    let hex = SHA1.hash(Array(message.utf8)).map { String(format: "%02x", $0) }.joined()
    #expect(hex == digest)
  }

  @Test func hashesOneMillionAs() {
    let hex = SHA1.hash([UInt8](repeating: 0x61, count: 1_000_000)).map { String(format: "%02x", $0) }
      .joined()
    #expect(hex == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
  }

  @Test func computesTheRFC6455AcceptValue() {
    #expect(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
  }

  @Test func makesFreshValidKeys() {
    let first = WebSocketHandshake.makeKey()
    #expect(WebSocketHandshake.isValidKey(first))
    #expect(first != WebSocketHandshake.makeKey())
  }
}

@Suite struct FrameDecoderTests {
  static func header(_ first: UInt8, _ second: UInt8, _ rest: [UInt8] = []) -> [UInt8] {
    [first, second] + rest
  }

  @Test(arguments: [
    ("reserved bit", header(0xC1, 0x00), UInt16(1002)),
    ("reserved opcode 3", header(0x83, 0x00), 1002),
    ("reserved opcode 11", header(0x8B, 0x00), 1002),
    ("masked frame", header(0x81, 0x80, [1, 2, 3, 4]), 1002),
    ("non-minimal 16-bit length", header(0x81, 126, [0, 125]), 1002),
    ("non-minimal 64-bit length", header(0x81, 127, [0, 0, 0, 0, 0, 0, 0xFF, 0xFF]), 1002),
    ("64-bit length top bit", header(0x81, 127, [0x80, 0, 0, 0, 0, 1, 0, 0]), 1002),
    ("control over 125 bytes", header(0x89, 126, [0, 126]), 1002),
    ("fragmented control", header(0x09, 0x00), 1002),
    ("frame over 1 MiB", header(0x81, 127, [0, 0, 0, 0, 0, 0x10, 0, 1]), 1009),
    ("close payload of 1 byte", header(0x88, 0x01, [3]), 1002),
    ("close code 1005", header(0x88, 0x02, [0x03, 0xED]), 1002),
    ("close reason not UTF-8", header(0x88, 0x03, [0x03, 0xE8, 0xFF]), 1007),
  ])
  func refusesWhatAClientMustNotAccept(name: String, bytes: [UInt8], closeCode: UInt16) {
    var decoder = WebSocketFrameDecoder(role: .client)
    decoder.append(bytes)
    guard case .violation(let violation) = decoder.next() else {
      Issue.record("\(name): accepted")
      return
    }
    #expect(violation.closeCode == closeCode, "\(name)")
    guard case .violation = decoder.next() else {
      Issue.record("\(name): the decoder recovered after a violation")
      return
    }
  }

  @Test func refusesAnUnmaskedFrameInTheServerRole() {
    var decoder = WebSocketFrameDecoder(role: .server)
    decoder.append([0x81, 0x02, 0x68, 0x69])
    #expect(
      decoder.next()
        == .violation(WebSocketViolation(closeCode: 1002, message: "unmasked frame from the client")))
  }

  @Test func asksForMoreUntilTheFrameIsWhole() {
    let frame = WebSocketFrameEncoder.frame(opcode: .text, payload: Array(repeating: 0x61, count: 300))
    var decoder = WebSocketFrameDecoder(role: .client)
    for byte in frame.dropLast() {
      decoder.append([byte])
      #expect(decoder.next() == .needMore)
    }
    decoder.append([frame.last!])
    #expect(
      decoder.next()
        == .frame(WebSocketFrame(fin: true, opcode: .text, payload: Array(repeating: 0x61, count: 300))))
  }

  @Test(arguments: [0, 125, 126, 65535, 65536, 200_000])
  func roundTripsMaskedClientFramesThroughTheServerDecoder(length: Int) {
    let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let frames = WebSocketFrameEncoder.textMessage(payload, role: .client)
    #expect(frames.count == 1)
    #expect(frames[0][1] & 0x80 != 0)
    var decoder = WebSocketFrameDecoder(role: .server)
    decoder.append(frames[0])
    #expect(decoder.next() == .frame(WebSocketFrame(fin: true, opcode: .text, payload: payload)))
    #expect(decoder.bufferedCount == 0)
  }

  @Test func splitsAMessageOver1MiBIntoContinuationFrames() {
    let payload = [UInt8](repeating: 0x62, count: 2 * 1024 * 1024 + 5)
    let frames = WebSocketFrameEncoder.textMessage(payload, role: .server)
    #expect(frames.count == 3)
    var decoder = WebSocketFrameDecoder(role: .client)
    var assembler = WebSocketMessageAssembler()
    var outcomes: [WebSocketMessageAssembler.Outcome] = []
    for frame in frames {
      decoder.append(frame)
      guard case .frame(let decoded) = decoder.next() else {
        Issue.record("frame refused")
        return
      }
      #expect(decoded.payload.count <= WebSocketFrameEncoder.maxFramePayloadBytes)
      outcomes.append(assembler.take(decoded))
    }
    #expect(outcomes == [.partial, .partial, .text(payload)])
  }
}

@Suite struct MessageAssemblerTests {
  static func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> WebSocketFrame {
    WebSocketFrame(fin: fin, opcode: opcode, payload: Array(text.utf8))
  }

  @Test func joinsFragmentsAroundAPing() {
    var assembler = WebSocketMessageAssembler()
    #expect(assembler.take(Self.frame(.text, "hel", fin: false)) == .partial)
    #expect(assembler.take(Self.frame(.ping, "p")) == .ping(Array("p".utf8)))
    #expect(assembler.take(Self.frame(.continuation, "lo")) == .text(Array("hello".utf8)))
    #expect(!assembler.hasOpenMessage)
  }

  @Test(arguments: [
    ("continuation with no message open", [frame(.continuation, "x")], UInt16(1002)),
    ("data frame while one is open", [frame(.text, "a", fin: false), frame(.text, "b")], 1002),
    ("binary message", [frame(.binary, "b")], 1003),
    (
      "text not UTF-8 once whole",
      [
        WebSocketFrame(fin: false, opcode: .text, payload: [0xE2, 0x82]),
        WebSocketFrame(fin: true, opcode: .continuation, payload: [0x28]),
      ],
      1007
    ),
  ])
  func refusesBrokenMessages(name: String, frames: [WebSocketFrame], closeCode: UInt16) {
    var assembler = WebSocketMessageAssembler()
    let last = frames.map { assembler.take($0) }.last
    guard case .violation(let violation)? = last else {
      Issue.record("\(name): accepted")
      return
    }
    #expect(violation.closeCode == closeCode, "\(name)")
  }

  @Test func acceptsUTF8SplitAcrossFragments() {
    var assembler = WebSocketMessageAssembler()
    #expect(assembler.take(WebSocketFrame(fin: false, opcode: .text, payload: [0xE2, 0x82])) == .partial)
    #expect(
      assembler.take(WebSocketFrame(fin: true, opcode: .continuation, payload: [0xAC]))
        == .text([0xE2, 0x82, 0xAC]))
  }

  @Test func refusesAMessageOverItsBound() {
    var assembler = WebSocketMessageAssembler(maxMessageBytes: 10)
    #expect(assembler.take(Self.frame(.text, "123456", fin: false)) == .partial)
    guard case .violation(let violation) = assembler.take(Self.frame(.continuation, "78901")) else {
      Issue.record("accepted")
      return
    }
    #expect(violation.closeCode == 1009)
    #expect(violation.error.code == .messageTooLarge)
  }
}

@Suite struct WebSocketURLTests {
  @Test(arguments: [
    ("ws://127.0.0.1:7447", "127.0.0.1", 7447, "/", "127.0.0.1:7447"),
    ("WS://Relay.Example.COM/path?x=1", "relay.example.com", 80, "/path?x=1", "relay.example.com"),
    ("wss://relay.example.com:443", "relay.example.com", 443, "/", "relay.example.com"),
    ("ws://[::1]:8080/", "::1", 8080, "/", "[::1]:8080"),
    ("ws://relay.localhost?q", "relay.localhost", 80, "/?q", "relay.localhost"),
  ])
  func parsesWebSocketURLs(text: String, host: String, port: Int, target: String, hostHeader: String) throws {
    let url = try WebSocketURL(text)
    #expect(url.host == host)
    #expect(url.effectivePort == port)
    #expect(url.requestTarget == target)
    #expect(url.hostHeader == hostHeader)
    #expect(url.text == text)
  }

  @Test(arguments: [
    ("ws://user@host", "invalid_url"), ("ws://host/#frag", "invalid_url"), ("ws://", "invalid_url"),
    ("ws://host:0", "invalid_url"), ("ws://host:65536", "invalid_url"), ("relay.example.com", "invalid_url"),
    ("ws://ho st", "invalid_url"), ("http://127.0.0.1:80", "unsupported_scheme"),
    ("ftp://x", "unsupported_scheme"), ("ws://" + String(repeating: "a", count: 2050), "invalid_url"),
  ])
  func refusesOtherURLs(text: String, code: String) {
    let error = #expect(throws: RelayConnectionError.self) { try WebSocketURL(text) }
    #expect(error?.code.rawValue == code)
  }
}

@Suite struct RelayMessageTests {
  @Test(arguments: [
    (#"["EOSE","s"]"#, RelayMessage.endOfStoredEvents(subscription: "s")),
    (#"["OK","ab",true]"#, .ok(eventID: "ab", accepted: true, message: "")),
    (#"["OK","ab",false,"blocked: no"]"#, .ok(eventID: "ab", accepted: false, message: "blocked: no")),
    (#"["CLOSED","s","auth-required: x"]"#, .closed(subscription: "s", message: "auth-required: x")),
    (#"["NOTICE","hi"]"#, .notice("hi")),
    (#"["AUTH","c"]"#, .auth(challenge: "c")),
  ])
  func parsesRelayMessages(text: String, expected: RelayMessage) {
    #expect(RelayMessage.parse(Array(text.utf8)) == expected)
  }

  @Test(arguments: [
    #"{"EOSE":1}"#, #"["EOSE"]"#, #"["OK","ab","true"]"#, #"["EVENT","s","e"]"#, #"["WHAT","s"]"#, "[1,2]",
    #"["NOTICE","a","b"]"#, "not json",
  ])
  func ignoresOtherShapes(text: String) {
    #expect(RelayMessage.parse(Array(text.utf8)) == nil)
  }
}
