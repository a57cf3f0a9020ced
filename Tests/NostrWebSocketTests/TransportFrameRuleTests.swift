import Foundation
import NostrWebSocket
import Testing

/// The POSIX client against a scripted loopback server that sends what the fixture never would.
@Suite(.timeLimit(.minutes(1))) struct TransportFrameRuleTests {
  /// Starts a scripted server, connects the client to it, and returns both once the handshake is done.
  static func connected() async throws -> (PosixWebSocketTransport, LoopbackPeer) {
    let (listener, port) = try LoopbackPeer.listen()
    async let peer = LoopbackPeer.accept(listener)
    async let transport = PosixWebSocketTransport.connect(
      to: try WebSocketURL("ws://127.0.0.1:\(port)"), deadline: .now + .seconds(10))
    let server = try await peer
    #expect(await server.acceptHandshake())
    return (try await transport, server)
  }

  static func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> [UInt8] {
    WebSocketFrameEncoder.frame(opcode: opcode, payload: Array(text.utf8), fin: fin)
  }

  @Test func deliversAFragmentedTextMessageWithAnInterleavedPing() async throws {
    let (transport, server) = try await Self.connected()
    server.send(
      Self.frame(.text, "[\"NOT", fin: false) + Self.frame(.ping, "p1")
        + Self.frame(.continuation, "ICE\",\"x\"]"))
    #expect(try await transport.receive() == Array("[\"NOTICE\",\"x\"]".utf8))
    let pong = await server.readFrame(as: .server)
    #expect(pong?.opcode == .pong)
    #expect(pong?.payload == Array("p1".utf8))
    await transport.close()
  }

  @Test func answersAPingBeforeItsNextFrame() async throws {
    let (transport, server) = try await Self.connected()
    server.send(Self.frame(.ping, "abc") + Self.frame(.text, "[\"NOTICE\",\"after the ping\"]"))
    _ = try await transport.receive()
    try await transport.send(Array("[\"REQ\"]".utf8))
    let first = await server.readFrame(as: .server)
    let second = await server.readFrame(as: .server)
    #expect(first?.opcode == .pong)
    #expect(first?.payload == Array("abc".utf8))
    #expect(second?.payload == Array("[\"REQ\"]".utf8))
    await transport.close()
  }

  @Test(arguments: [
    ("reserved bits", [UInt8(0xF1), 0x00], "protocol_violation", UInt16(1002)),
    ("oversized frame", [0x81, 127, 0, 0, 0, 0, 0, 0x20, 0, 0], "message_too_large", 1009),
    ("masked server frame", [0x81, 0x81, 1, 2, 3, 4, 0x61], "protocol_violation", 1002),
    ("binary message", [0x82, 0x01, 0x00], "protocol_violation", 1003),
    ("text not UTF-8", [0x81, 0x01, 0xFF], "protocol_violation", 1007),
  ])
  func closesOnAViolation(name: String, bytes: [UInt8], code: String, closeCode: UInt16) async throws {
    let (transport, server) = try await Self.connected()
    server.send(bytes)
    let error = await #expect(throws: RelayConnectionError.self) { try await transport.receive() }
    #expect(error?.code.rawValue == code, "\(name)")
    let close = await server.readFrame(.close, as: .server)
    #expect(close.map { UInt16($0.payload[0]) << 8 | UInt16($0.payload[1]) } == closeCode, "\(name)")
    #expect(await server.waitForClose())
  }

  @Test func refusesAMessageOver4MiB() async throws {
    let (transport, server) = try await Self.connected()
    let chunk = [UInt8](repeating: 0x61, count: 1024 * 1024)
    var bytes = WebSocketFrameEncoder.frame(opcode: .text, payload: chunk, fin: false)
    for _ in 0..<4 { bytes += WebSocketFrameEncoder.frame(opcode: .continuation, payload: chunk, fin: false) }
    server.send(bytes)
    let error = await #expect(throws: RelayConnectionError.self) { try await transport.receive() }
    #expect(error?.code == .messageTooLarge)
    let close = await server.readFrame(.close, as: .server)
    #expect(close?.payload.prefix(2) == [0x03, 0xF1])
  }

  @Test func refusesToSendAMessageOver4MiB() async throws {
    let (transport, server) = try await Self.connected()
    let error = await #expect(throws: RelayConnectionError.self) {
      try await transport.send([UInt8](repeating: 0x61, count: 4 * 1024 * 1024 + 1))
    }
    #expect(error?.code == .messageTooLarge)
    try await transport.send(Array("ok".utf8))
    #expect(await server.readFrame(as: .server)?.payload == Array("ok".utf8))
  }

  @Test func endsWithConnectionClosedWhenTheSocketEndsMidMessage() async throws {
    let (transport, server) = try await Self.connected()
    server.send(Self.frame(.text, "[\"NOTICE\"", fin: false) + [0x80, 0x05, 0x61])
    server.shutdownNow()
    let error = await #expect(throws: RelayConnectionError.self) { try await transport.receive() }
    #expect(error?.code == .connectionClosed)
    #expect(error?.message.hasPrefix("1006") == true)
  }

  @Test func echoesTheServersCloseAndReportsIt() async throws {
    let (transport, server) = try await Self.connected()
    server.send(WebSocketFrameEncoder.close(code: 4001, reason: "bye", role: .server))
    let error = await #expect(throws: RelayConnectionError.self) { try await transport.receive() }
    #expect(error?.code == .connectionClosed)
    #expect(error?.message == "4001 bye")
    let echo = await server.readFrame(.close, as: .server)
    #expect(echo?.payload.prefix(2) == [0x0F, 0xA1])
  }

  @Test func closeSendsCode1000AndClosesTheSocket() async throws {
    let (transport, server) = try await Self.connected()
    async let closing: Void = transport.close()
    let close = await server.readFrame(.close, as: .server)
    #expect(close?.payload.prefix(2) == [0x03, 0xE8])
    await closing
    #expect(await server.waitForClose())
  }

  @Test func timesOutWhenTheHandshakeNeverFinishes() async throws {
    let (listener, port) = try LoopbackPeer.listen()
    async let peer = LoopbackPeer.accept(listener)
    let start = ContinuousClock.now
    let error = await #expect(throws: RelayConnectionError.self) {
      _ = try await PosixWebSocketTransport.connect(
        to: try WebSocketURL("ws://127.0.0.1:\(port)"), deadline: .now + .milliseconds(500))
    }
    let elapsed = start.duration(to: .now)
    #expect(error?.code == .timeout)
    #expect(error?.message == "handshake")
    #expect(elapsed < .seconds(3))
    _ = try await peer
  }

  @Test(arguments: [
    "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: wrong=\r\n\r\n",
    "HTTP/1.1 301 Moved\r\nLocation: ws://elsewhere/\r\n\r\n",
  ])
  func refusesABadHandshakeAnswer(answer: String) async throws {
    let (listener, port) = try LoopbackPeer.listen()
    async let peer = LoopbackPeer.accept(listener)
    let transport = Task {
      try await PosixWebSocketTransport.connect(
        to: try WebSocketURL("ws://127.0.0.1:\(port)"), deadline: .now + .seconds(10))
    }
    let server = try await peer
    #expect(await server.acceptHandshake(answer: answer))
    let error = await #expect(throws: RelayConnectionError.self) { _ = try await transport.value }
    #expect(error?.code == .handshakeFailed)
  }

  @Test func cancellingTheConnectEndsItAtOnce() async throws {
    let (listener, port) = try LoopbackPeer.listen()
    async let peer = LoopbackPeer.accept(listener)
    let task = Task {
      try await PosixWebSocketTransport.connect(
        to: try WebSocketURL("ws://127.0.0.1:\(port)"), deadline: .now + .seconds(30))
    }
    _ = try await peer
    task.cancel()
    let error = await #expect(throws: RelayConnectionError.self) { _ = try await task.value }
    #expect(error?.code == .cancelled)
  }

  @Test func reportsARefusedConnectionAsUnreachable() async throws {
    let (listener, port) = try LoopbackPeer.listen()
    close(listener)
    let error = await #expect(throws: RelayConnectionError.self) {
      _ = try await PosixWebSocketTransport.connect(
        to: try WebSocketURL("ws://127.0.0.1:\(port)"), deadline: .now + .seconds(5))
    }
    #expect(error?.code == .unreachable)
  }
}
