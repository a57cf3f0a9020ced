import NostrHTTP
import NostrPushCore
import PushGateway

/// An ``APNsTransport`` in place of the network hop to Apple: records every request the gateway
/// sends and answers from a per-token script (200 with the request's `apns-id` when nothing is
/// scripted), or throws a scripted transport error. For the demo and for tests whose subject is
/// the gateway's admission, not the APNs hop.
public final class RecordingAPNsTransport: APNsTransport {
  /// One scripted answer.
  public enum Answer: Sendable {
    /// APNs answers with this response.
    case response(APNsResponse)
    /// The hop fails (a timeout, a reset).
    case failure(HTTPTransportError)
  }

  /// One request the gateway sent and the status it was answered (nil when the hop failed).
  public struct Exchange: Sendable, Hashable {
    /// The request as the gateway wrote it.
    public let request: APNsRequest
    /// The status answered, nil when the scripted answer was a transport failure.
    public let status: Int?
  }

  private let state = Locked<(exchanges: [Exchange], script: [String: [Answer]])>(([], [:]))

  /// A transport with an empty script.
  public init() {}

  /// Answers the next request to `token` with `answer` (in order, each once).
  public func script(_ token: String, _ answer: Answer) {
    state.withLock { $0.script[token, default: []].append(answer) }
  }

  /// Every request so far, in the order sent.
  public var requests: [APNsRequest] { state.current.exchanges.map(\.request) }

  /// Every request so far with the status it was answered.
  public var exchanges: [Exchange] { state.current.exchanges }

  /// Records `request` and answers it from the script.
  public func send(_ request: APNsRequest, deadline: ContinuousClock.Instant) async throws(HTTPTransportError)
    -> APNsResponse
  {
    let answer = state.withLock { state -> Answer? in
      guard var queue = state.script[request.deviceToken], !queue.isEmpty else {
        state.exchanges.append(Exchange(request: request, status: 200))
        return nil
      }
      let first = queue.removeFirst()
      state.script[request.deviceToken] = queue
      if case .response(let response) = first {
        state.exchanges.append(Exchange(request: request, status: response.status))
      } else {
        state.exchanges.append(Exchange(request: request, status: nil))
      }
      return first
    }
    switch answer {
    case nil:
      let apnsID = request.headers.last { $0.name == "apns-id" }?.value ?? ""
      return APNsResponse(status: 200, headers: ["apns-id": apnsID])
    case .response(let response): return response
    case .failure(let error): throw error
    }
  }
}
