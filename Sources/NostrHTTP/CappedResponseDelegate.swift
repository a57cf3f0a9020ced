import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one request in flight: its cap, the bytes kept so far, and the one-time result.
///
/// `@unchecked Sendable`: every mutable field is read and written under `lock`; the session
/// delegate, the deadline timer and the cancellation handler all reach it from different threads.
final class CappedExchange: @unchecked Sendable {
  typealias Outcome = Result<HTTPTransportResponse, HTTPTransportError>

  let cap: Int
  private let lock = NSLock()
  private var body: [UInt8] = []
  private var response: HTTPURLResponse?
  private var outcome: Outcome?
  private var continuation: CheckedContinuation<Outcome, Never>?

  init(cap: Int) { self.cap = cap }

  /// Hands over the waiting continuation; resumes it at once when the exchange already ended.
  func attach(_ continuation: CheckedContinuation<Outcome, Never>) {
    lock.lock()
    if let outcome {
      lock.unlock()
      continuation.resume(returning: outcome)
      return
    }
    self.continuation = continuation
    lock.unlock()
  }

  /// Ends the exchange with `outcome` unless it already ended; true when this call ended it.
  @discardableResult
  func finish(_ outcome: Outcome) -> Bool {
    lock.lock()
    guard self.outcome == nil else {
      lock.unlock()
      return false
    }
    self.outcome = outcome
    body = []
    let continuation = self.continuation
    self.continuation = nil
    lock.unlock()
    continuation?.resume(returning: outcome)
    return true
  }

  /// Records the response head; false (and the exchange ended) when its length exceeds the cap.
  func receive(response: HTTPURLResponse) -> Bool {
    if response.expectedContentLength > Int64(cap) {
      finish(
        .failure(
          HTTPTransportError(
            code: .tooLarge, message: "Content-Length over \(cap) bytes", detail: response.statusCode)))
      return false
    }
    lock.lock()
    self.response = response
    let ended = outcome != nil
    lock.unlock()
    return !ended
  }

  /// Keeps `data` unless the exchange ended; false (and the exchange ended) past the cap.
  func receive(data: Data) -> Bool {
    lock.lock()
    guard outcome == nil else {
      lock.unlock()
      return false
    }
    guard body.count + data.count <= cap else {
      let status = response?.statusCode
      lock.unlock()
      finish(.failure(HTTPTransportError(code: .tooLarge, message: "body over \(cap) bytes", detail: status)))
      return false
    }
    body.append(contentsOf: data)
    lock.unlock()
    return true
  }

  /// Ends the exchange from the task's completion; `taskResponse` is the task's final response,
  /// which a refused redirect delivers without a response callback.
  func complete(error: (any Error)?, taskResponse: HTTPURLResponse?) {
    lock.lock()
    let response = self.response ?? taskResponse
    let body = self.body
    lock.unlock()
    if let error {
      finish(.failure(Self.map(error, responseStarted: response != nil)))
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
      finish(.failure(HTTPTransportError(code: .truncated, message: "body shorter than Content-Length")))
      return
    }
    var headers: [String: String] = [:]
    for (name, value) in response.allHeaderFields {
      if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
    }
    finish(.success(HTTPTransportResponse(status: response.statusCode, headers: headers, body: body)))
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
/// `@unchecked Sendable`: the exchange table is guarded by `lock`.
final class CappedResponseDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private let lock = NSLock()
  private var exchanges: [Int: CappedExchange] = [:]

  func register(_ exchange: CappedExchange, for task: Int) {
    lock.lock()
    exchanges[task] = exchange
    lock.unlock()
  }

  func unregister(_ task: Int) {
    lock.lock()
    exchanges[task] = nil
    lock.unlock()
  }

  private func exchange(_ task: URLSessionTask) -> CappedExchange? {
    lock.lock()
    defer { lock.unlock() }
    return exchanges[task.taskIdentifier]
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
