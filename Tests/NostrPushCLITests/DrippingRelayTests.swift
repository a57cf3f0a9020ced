import Foundation
import NostrEvent
import NostrPushTestSupport
import NostrWebSocket
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `Docs/Robustness.md`: `--timeout-ms` bounds the whole `publish`/`query` command, the WebSocket
/// close included, against a server that upgrades and then drips a frame that never ends.
@Suite(.timeLimit(.minutes(1))) struct DrippingRelayTests {
  /// The timeout the command is given, and the slack the spec allows past it. The bound is
  /// checked on what the server sees — from accepting the connection to its end — so the
  /// process's own start and exit, which a loaded machine stretches, do not count; the command's
  /// deadline starts before the connection does, so this span is the shorter one.
  static let timeoutMilliseconds = 1500
  static let slack: Duration = .milliseconds(200)

  @Test(arguments: ["publish", "query"])
  func endsWithinTheTimeoutCloseIncluded(command: String) async throws {
    let server = try DrippingWebSocketServer()
    defer { server.stop() }
    let hex = "7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a"
    let key = try SecretKey(hex: hex)
    let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString)")
    try Data(hex.utf8).write(to: keyFile)
    defer { try? FileManager.default.removeItem(at: keyFile) }
    let event = try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: Int64(Date().timeIntervalSince1970), kind: 1, tags: [],
      content: "drip"
    ).signed(with: key)
    let run = try await NostrPushBinary.run(
      [
        command, "--relay", "ws://127.0.0.1:\(server.port)", "--secret-key-file", keyFile.path,
        "--timeout-ms",
        "\(Self.timeoutMilliseconds)",
      ],
      input: command == "publish" ? event.jsonBytes() : [])
    #expect(server.upgraded, "the server never upgraded the connection")
    #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
    #expect(run.stdout.contains("timeout") || run.stderr.contains("timeout"), "\(run.stdout) \(run.stderr)")
    // The process has exited, so its socket is closed; the server notices within one poll.
    #expect(await Polling.eventually(within: .seconds(5)) { server.lifetime != nil })
    let lifetime = try #require(server.lifetime)
    #expect(
      lifetime <= .milliseconds(Self.timeoutMilliseconds) + Self.slack,
      "the connection lasted \(lifetime) with --timeout-ms \(Self.timeoutMilliseconds)")
  }
}

/// A loopback WebSocket server that completes the opening handshake and then sends the header of
/// a 64 KiB text frame followed by one payload byte every 50 ms: the frame never ends within a
/// test, and it never answers a close. It records how long the connection lasted, from accept to
/// the client's end of stream.
final class DrippingWebSocketServer: Sendable {
  let port: UInt16
  private let listener: Int32
  private struct State {
    var stopped = false
    var upgraded = false
    var accepted: ContinuousClock.Instant?
    var ended: ContinuousClock.Instant?
  }
  private let state = Mutex(State())

  init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
        bind(fd, generic, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, generic, &length) == 0
      }
    }
    guard bound else {
      close(fd)
      throw POSIXError(.EADDRINUSE)
    }
    listener = fd
    port = UInt16(bigEndian: address.sin_port)
    Thread.detachNewThread { [self] in serve() }
  }

  /// Whether a client completed the handshake.
  var upgraded: Bool { state.withLock { $0.upgraded } }

  /// How long the connection lasted, once the client ended it.
  var lifetime: Duration? {
    state.withLock { state in state.accepted.flatMap { start in state.ended.map { $0 - start } } }
  }

  /// Stops dripping and closes the listener.
  func stop() {
    state.withLock { $0.stopped = true }
    shutdown(listener, Int32(SHUT_RDWR))
  }

  private var stopped: Bool { state.withLock { $0.stopped } }

  private func serve() {
    defer { close(listener) }
    let client = accept(listener, nil, nil)
    guard client >= 0 else { return }
    state.withLock { $0.accepted = .now }
    defer { close(client) }
    var head: [UInt8] = []
    var byte: UInt8 = 0
    while !head.ends(with: Array("\r\n\r\n".utf8)), head.count < 16 * 1024 {
      guard recv(client, &byte, 1, 0) == 1 else { return }
      head.append(byte)
    }
    let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n")
    guard
      let keyLine = lines.first(where: { $0.lowercased().hasPrefix("sec-websocket-key:") }),
      let key = keyLine.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces)
    else { return }
    let answer =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(for: key))\r\n\r\n"
    guard send(client, Array(answer.utf8), answer.utf8.count, Int32(MSG_NOSIGNAL)) == answer.utf8.count else {
      return
    }
    state.withLock { $0.upgraded = true }
    let frameHead: [UInt8] = [0x81, 0x7E, 0xFF, 0xFF]
    guard send(client, frameHead, frameHead.count, Int32(MSG_NOSIGNAL)) == frameHead.count else { return }
    var drip: UInt8 = UInt8(ascii: "a")
    var scratch = [UInt8](repeating: 0, count: 1024)
    for _ in 0..<400 where !stopped {
      guard send(client, &drip, 1, Int32(MSG_NOSIGNAL)) == 1 else { break }
      // Wait out the drip interval, reading (and dropping) what the client sends until its end.
      var descriptor = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
      if poll(&descriptor, 1, 50) > 0 {
        let count = recv(client, &scratch, scratch.count, 0)
        if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) { break }
      }
    }
    state.withLock { $0.ended = .now }
  }
}

extension Array where Element == UInt8 {
  fileprivate func ends(with suffix: [UInt8]) -> Bool {
    count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
  }
}
