/// One open WebSocket connection carrying text messages: what `RelayConnection` speaks NIP-01 over.
///
/// Two implementations: `PosixWebSocketTransport` (`ws://`, every platform) and, on Apple
/// platforms, `URLSessionWebSocketTransport` (`wss://`). A test may supply its own.
package protocol WebSocketTransport: AnyObject, Sendable {
  /// Queues one text message (UTF-8 bytes); `message_too_large` over 4 MiB (nothing sent), or
  /// the error that ended the connection.
  func send(_ text: [UInt8]) async throws(RelayConnectionError)
  /// The next whole text message; throws the error that ended the connection once every message
  /// received before it has been taken.
  func receive() async throws(RelayConnectionError) -> [UInt8]
  /// Runs the close handshake (close 1000, then at most `closeTimeout` for the server's close or
  /// end of stream, and never past `deadline`) and closes the socket; returns when it is closed.
  func close(by deadline: ContinuousClock.Instant) async
}

extension WebSocketTransport {
  /// Runs the close handshake with no deadline but `closeTimeout`.
  package func close() async {
    await close(by: .now + WebSocketTimeouts.closeTimeout)
  }
}

/// The timing bounds of a WebSocket connection.
package enum WebSocketTimeouts {
  /// The longest a TCP connect may take (also bounded by the caller's deadline).
  package static let connectTimeout: Duration = .seconds(5)
  /// The longest the opening handshake may take after the TCP connect.
  package static let handshakeTimeout: Duration = .seconds(5)
  /// How long `close()` waits for the server's close frame or end of stream.
  package static let closeTimeout: Duration = .seconds(1)
}

/// Opens the transport for `url`: the POSIX client for `ws`, `URLSessionWebSocketTask` for `wss`
/// on Apple platforms, `unsupported_scheme` for `wss` elsewhere.
package func openWebSocket(
  to url: WebSocketURL, deadline: ContinuousClock.Instant
) async throws(RelayConnectionError) -> any WebSocketTransport {
  if url.isSecure {
    #if canImport(Darwin)
    return try await URLSessionWebSocketTransport.connect(to: url, deadline: deadline)
    #else
    throw RelayConnectionError(
      code: .unsupportedScheme, message: "wss:// needs TLS, which this platform's build does not have")
    #endif
  }
  return try await PosixWebSocketTransport.connect(to: url, deadline: deadline)
}
