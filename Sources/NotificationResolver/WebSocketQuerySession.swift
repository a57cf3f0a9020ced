import NostrEvent
import NostrPushCore
import NostrWebSocket

/// The one WebSocket of a wake on `.websocket`: opened by the first query (its deadline covers
/// connect, handshake and AUTH), shared by every later query of the wake, closed by ``close()``
/// once the wake's lingering work has ended.
///
/// An actor: queries may start concurrently (profile, channel and membership refreshes), and
/// only the first one connects.
actor WebSocketQuerySession {
  private let url: String
  private let key: SecretKey
  private let clock: UnixClock
  private var connecting: Task<Result<RelayConnection, RelayConnectionError>, Never>?
  private var closed = false

  init(origin: RelayOrigin, key: SecretKey, clock: UnixClock) {
    self.url = origin.webSocketURL
    self.key = key
    self.clock = clock
  }

  /// The events `filters` match, verified and re-checked by `RelayConnection`, up to `cap` bytes
  /// of `EVENT` messages, each read within `limits` (an event over a bound is dropped before it
  /// is built, as for `/query` answers); an answer past `cap` keeps the events received before
  /// it, as a `/query` answer keeps its prefix; failures in the resolver's terms.
  func query(
    _ filters: [Filter], cap: Int, limits: EventReadLimits, deadline: ContinuousClock.Instant
  ) async throws(RelayFailure) -> [Event] {
    let connection = try await connection(deadline: deadline)
    do {
      return try await connection.query(
        filters, limits: QueryLimits(maxBytes: cap, eventLimits: limits, keepsPrefix: true),
        deadline: deadline)
    } catch {
      throw Self.failure(error)
    }
  }

  /// Closes the socket (close 1000); later queries fail `relay_unreachable`.
  func close() async {
    closed = true
    guard let connecting else { return }
    if case .success(let connection) = await connecting.value { await connection.close() }
  }

  private func connection(deadline: ContinuousClock.Instant) async throws(RelayFailure) -> RelayConnection {
    guard !closed else { throw RelayFailure(.relayUnreachable, "the wake's connection is closed") }
    let task: Task<Result<RelayConnection, RelayConnectionError>, Never>
    if let connecting {
      task = connecting
    } else {
      let (url, key, clock) = (self.url, self.key, self.clock)
      task = Task {
        do throws(RelayConnectionError) {
          return .success(
            try await RelayConnection.connect(to: url, key: key, clock: { clock.now() }, deadline: deadline))
        } catch {
          return .failure(error)
        }
      }
      connecting = task
    }
    let result = await withTaskCancellationHandler {
      await task.value
    } onCancel: {
      task.cancel()
    }
    switch result {
    case .success(let connection): return connection
    case .failure(let error): throw Self.failure(error)
    }
  }

  /// A connection error as the fallback reason it reports.
  static func failure(_ error: RelayConnectionError) -> RelayFailure {
    let reason: FallbackReason
    switch error.code {
    case .unreachable, .unsupportedScheme, .invalidURL: reason = .relayUnreachable
    case .handshakeFailed, .subscriptionClosed, .authRequired, .authFailed: reason = .relayError
    case .protocolViolation, .messageTooLarge, .resultTooLarge, .connectionClosed: reason = .invalidResponse
    case .timeout, .cancelled: reason = .timeout
    default: reason = .relayError
    }
    return RelayFailure(reason, "\(error.code.rawValue): \(error.message)")
  }
}
