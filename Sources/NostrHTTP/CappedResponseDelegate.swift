import Foundation
import NostrPushCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one request in flight: its cap, the bytes kept so far, and the one-time result.
///
/// The session delegate, the deadline timer and the cancellation handler all reach it from
/// different threads; its mutable state is one `Locked` value.
final class CappedExchange: Sendable {
  typealias Outcome = Result<HTTPTransportResponse, HTTPTransportError>

  /// What arrived so far, and whether the exchange has ended.
  private struct State {
    var body: [UInt8] = []
    var response: HTTPURLResponse?
    var ended = false
  }

  let cap: Int
  /// Whether a body over the cap ends the exchange with its first `cap` bytes (marked truncated)
  /// instead of `too_large`, and a body cut short by the connection with the bytes that arrived
  /// (marked truncated) instead of `truncated`.
  let keepsPrefix: Bool
  private let state = Locked(State())
  /// The one result, handed to the waiting caller once.
  private let result = ResumeOnce<Outcome>()

  init(cap: Int, keepsPrefix: Bool = false) {
    self.cap = cap
    self.keepsPrefix = keepsPrefix
  }

  /// Hands over the waiting continuation; resumes it at once when the exchange already ended.
  func attach(_ continuation: CheckedContinuation<Outcome, Never>) {
    result.attach(continuation)
  }

  /// Ends the exchange with `outcome` unless it already ended; true when this call ended it.
  @discardableResult
  func finish(_ outcome: Outcome) -> Bool {
    let endedHere = state.withLock { state in
      guard !state.ended else { return false }
      state.ended = true
      state.body = []
      return true
    }
    if endedHere { result.resume(with: outcome) }
    return endedHere
  }

  /// Records the response head; false (and the exchange ended) when its length exceeds the cap.
  func receive(response: HTTPURLResponse) -> Bool {
    if response.expectedContentLength > Int64(cap), !keepsPrefix {
      finish(
        .failure(
          HTTPTransportError(
            code: .tooLarge, message: "Content-Length over \(cap) bytes", detail: response.statusCode)))
      return false
    }
    return state.withLock { state in
      state.response = response
      // A declared length (within the cap) is reserved at once: the body then never grows by
      // doubling, which would hold the old and the new storage together (up to 3 × a 2 MiB
      // roster's bytes at the moment of a copy).
      if !state.ended, response.expectedContentLength > 0 {
        state.body.reserveCapacity(Int(min(response.expectedContentLength, Int64(cap))))
      }
      return !state.ended
    }
  }

  /// Keeps `data` unless the exchange ended; false (and the exchange ended) past the cap — with
  /// the first `cap` bytes as a truncated response when the exchange keeps the prefix.
  func receive(data: Data) -> Bool {
    enum Kept {
      case kept, ended
      case overCap(status: Int?)
      case prefix(HTTPTransportResponse)
    }
    let kept = state.withLock { state -> Kept in
      guard !state.ended else { return .ended }
      guard state.body.count + data.count <= cap else {
        guard keepsPrefix, let response = state.response else {
          return .overCap(status: state.response?.statusCode)
        }
        state.body.append(contentsOf: data.prefix(cap - state.body.count))
        return .prefix(Self.response(response, body: state.body, isTruncated: true))
      }
      state.body.append(contentsOf: data)
      return .kept
    }
    switch kept {
    case .kept: return true
    case .ended: return false
    case .overCap(let status):
      finish(.failure(HTTPTransportError(code: .tooLarge, message: "body over \(cap) bytes", detail: status)))
      return false
    case .prefix(let response):
      finish(.success(response))
      return false
    }
  }

  /// Ends the exchange from the task's completion; `taskResponse` is the task's final response,
  /// which a refused redirect delivers without a response callback.
  func complete(error: (any Error)?, taskResponse: HTTPURLResponse?) {
    let (response, body) = state.withLock { ($0.response ?? taskResponse, $0.body) }
    if let error {
      let failure = Self.map(error, responseStarted: response != nil)
      // A connection lost mid-body still delivers what arrived to a caller that keeps prefixes.
      if keepsPrefix, failure.code == .truncated, let response {
        finish(.success(Self.response(response, body: body, isTruncated: true)))
      } else {
        finish(.failure(failure))
      }
      return
    }
    guard let response else {
      finish(.failure(HTTPTransportError(code: .truncated, message: "no response head")))
      return
    }
    // With a content coding, Content-Length counts the encoded bytes and the body is decoded.
    let encoding = (response.value(forHTTPHeaderField: "Content-Encoding") ?? "identity").lowercased()
    if encoding == "identity", response.expectedContentLength >= 0,
      Int64(body.count) != response.expectedContentLength
    {
      finish(
        keepsPrefix
          ? .success(Self.response(response, body: body, isTruncated: true))
          : .failure(HTTPTransportError(code: .truncated, message: "body shorter than Content-Length")))
      return
    }
    finish(.success(Self.response(response, body: body, isTruncated: false)))
  }

  /// The transport's response for `response`'s head and `body` (header names lower-cased).
  private static func response(_ response: HTTPURLResponse, body: [UInt8], isTruncated: Bool)
    -> HTTPTransportResponse
  {
    var headers: [String: String] = [:]
    for (name, value) in response.allHeaderFields {
      if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
    }
    return HTTPTransportResponse(
      status: response.statusCode, headers: headers, body: body, isTruncated: isTruncated)
  }

  private static func map(_ error: any Error, responseStarted: Bool) -> HTTPTransportError {
    guard let urlError = error as? URLError else {
      return HTTPTransportError(code: .unreachable, message: "\(error)")
    }
    switch urlError.code {
    case .timedOut:
      return HTTPTransportError(code: .timeout, message: "timed out")
    case .cancelled:
      return HTTPTransportError(code: .cancelled, message: "cancelled")
    default:
      return responseStarted
        ? HTTPTransportError(
          code: .truncated, message: "connection failed mid-body: \(urlError.code.rawValue)")
        : HTTPTransportError(code: .unreachable, message: "URL error \(urlError.code.rawValue)")
    }
  }
}

/// The session delegate: routes each task's callbacks to its ``CappedExchange``, refuses every
/// redirect, and cancels a task the moment its exchange ends (a cancelled task on Linux may keep
/// delivering data for a while; the ended exchange ignores it).
///
/// `@unchecked Sendable` only because `NSObject` is not `Sendable`; its one mutable field, the
/// exchange table, is a `Locked` value.
final class CappedResponseDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private let exchanges = Locked<[Int: CappedExchange]>([:])

  func register(_ exchange: CappedExchange, for task: Int) {
    exchanges.withLock { $0[task] = exchange }
  }

  func unregister(_ task: Int) {
    exchanges.withLock { $0[task] = nil }
  }

  private func exchange(_ task: URLSessionTask) -> CappedExchange? {
    exchanges.withLock { $0[task.taskIdentifier] }
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    guard let exchange = exchange(dataTask), let http = response as? HTTPURLResponse,
      exchange.receive(response: http)
    else {
      exchange(dataTask)?.finish(
        .failure(HTTPTransportError(code: .unreachable, message: "not an HTTP response")))
      completionHandler(.cancel)
      return
    }
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    guard let exchange = exchange(dataTask) else {
      dataTask.cancel()
      return
    }
    if !exchange.receive(data: data) { dataTask.cancel() }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    exchange(task)?.complete(error: error, taskResponse: task.response as? HTTPURLResponse)
  }
}
