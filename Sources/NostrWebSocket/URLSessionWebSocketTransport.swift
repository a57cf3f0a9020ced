#if canImport(Darwin)
import Foundation

/// `wss://` on Apple platforms: `URLSessionWebSocketTask` behind `WebSocketTransport`.
///
/// TLS needs the system's stack, which only Apple platforms give this package; framing rules are
/// the system's, with `maximumMessageSize` at 4 MiB. Binary messages are refused as the POSIX
/// client refuses them.
final class URLSessionWebSocketTransport: WebSocketTransport, @unchecked Sendable {
  private let session: URLSession
  private let task: URLSessionWebSocketTask

  private init(session: URLSession, task: URLSessionWebSocketTask) {
    self.session = session
    self.task = task
  }

  /// Opens `url` and waits (until `deadline`) for the handshake by sending a ping.
  static func connect(
    to url: WebSocketURL, deadline: ContinuousClock.Instant
  ) async throws(RelayConnectionError) -> URLSessionWebSocketTransport {
    guard let target = URL(string: url.text) else {
      throw RelayConnectionError(code: .invalidURL, message: url.text)
    }
    let session = URLSession(configuration: .ephemeral)
    let task = session.webSocketTask(with: target)
    task.maximumMessageSize = WebSocketMessageAssembler.defaultMaxMessageBytes
    task.resume()
    let transport = URLSessionWebSocketTransport(session: session, task: task)
    let budget = ContinuousClock.now.duration(to: deadline)
    let opened: RelayConnectionError? = await withTaskGroup(of: RelayConnectionError?.self) { group in
      group.addTask {
        await withCheckedContinuation { continuation in
          task.sendPing { error in
            continuation.resume(
              returning: error.map {
                RelayConnectionError(code: .handshakeFailed, message: $0.localizedDescription)
              })
          }
        }
      }
      group.addTask {
        try? await Task.sleep(for: budget)
        return Task.isCancelled
          ? RelayConnectionError(code: .cancelled, message: "connect")
          : RelayConnectionError(code: .timeout, message: "connect")
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
    if let opened {
      task.cancel(with: .goingAway, reason: nil)
      session.invalidateAndCancel()
      throw opened
    }
    return transport
  }

  func send(_ text: [UInt8]) async throws(RelayConnectionError) {
    guard text.count <= WebSocketFrameEncoder.maxMessageBytes else {
      throw RelayConnectionError(code: .messageTooLarge, message: "message of \(text.count) bytes over 4 MiB")
    }
    do {
      try await task.send(.string(String(decoding: text, as: UTF8.self)))
    } catch {
      throw closedError(error)
    }
  }

  func receive() async throws(RelayConnectionError) -> [UInt8] {
    do {
      switch try await task.receive() {
      case .string(let text): return Array(text.utf8)
      default:
        task.cancel(with: .unsupportedData, reason: nil)
        throw RelayConnectionError(code: .protocolViolation, message: "binary message (close 1003)")
      }
    } catch let error as RelayConnectionError {
      throw error
    } catch {
      throw closedError(error)
    }
  }

  func close(by deadline: ContinuousClock.Instant) async {
    task.cancel(with: .normalClosure, reason: nil)
    session.finishTasksAndInvalidate()
  }

  private func closedError(_ error: any Error) -> RelayConnectionError {
    let code = task.closeCode.rawValue
    let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? error.localizedDescription
    return RelayConnectionError(code: .connectionClosed, message: "\(code == 0 ? 1006 : code) \(reason)")
  }
}
#endif
