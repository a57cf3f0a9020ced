import Foundation
import NostrPushCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPTransport`` over `URLSession`: no redirects, no cookies or cache, the response cap
/// enforced while the bytes arrive, and the deadline enforced as a whole-exchange limit.
///
/// Every request asks for `Accept-Encoding: identity` (unless the caller set the header), so
/// `Content-Length` counts the bytes that arrive; a server that compresses anyway is accepted,
/// its body decoded by Foundation and the cap applied to the decoded bytes.
///
/// One instance (``shared``) serves every request of a process; each request's state lives in
/// the session delegate, keyed by task.
public final class URLSessionHTTPTransport: HTTPTransport {
  /// The process-wide transport.
  public static let shared = URLSessionHTTPTransport()

  /// The `URLRequest` timeout, only a backstop: the deadline is enforced by the transport's own
  /// timer, because on Linux a short `timeoutInterval` on one task of a busy session can fire
  /// early for another.
  static let idleTimeoutBackstop: TimeInterval = 300

  private let session: URLSession
  private let delegate: CappedResponseDelegate

  /// Creates a transport with its own ephemeral session.
  public init() {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpShouldSetCookies = false
    configuration.httpCookieAcceptPolicy = .never
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.timeoutIntervalForRequest = Self.idleTimeoutBackstop
    let delegate = CappedResponseDelegate()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    self.delegate = delegate
    self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
  }

  /// Sends `request` with redirects refused and the cap enforced; throws by `deadline`.
  public func send(_ request: HTTPTransportRequest, deadline: ContinuousClock.Instant)
    async throws(HTTPTransportError)
    -> HTTPTransportResponse
  {
    guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https"
    else { throw HTTPTransportError(code: .invalidURL, message: "not an http(s) URL") }
    let remaining = ContinuousClock.now.duration(to: deadline)
    guard remaining > .zero else {
      throw HTTPTransportError(code: .timeout, message: "deadline already passed")
    }
    var urlRequest = URLRequest(url: url)
    urlRequest.httpMethod = request.method
    urlRequest.timeoutInterval = Self.idleTimeoutBackstop
    urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
    for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
    if let body = request.body { urlRequest.httpBody = Data(body) }
    let task = session.dataTask(with: urlRequest)
    let exchange = CappedExchange(cap: request.maxResponseBytes, keepsPrefix: request.keepsPrefixPastCap)
    delegate.register(exchange, for: task.taskIdentifier)
    defer { delegate.unregister(task.taskIdentifier) }
    // The deadline and the caller's cancellation both cancel the exchange (and so the task).
    let raced = await DeadlineRace.value(by: deadline, cancelsOperation: true) {
      await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          exchange.attach(continuation)
          task.resume()
        }
      } onCancel: {
        if exchange.finish(.failure(HTTPTransportError(code: .cancelled, message: "cancelled"))) {
          task.cancel()
        }
      }
    }
    let result: CappedExchange.Outcome
    if let raced {
      result = raced
    } else if Task.isCancelled {
      result = .failure(HTTPTransportError(code: .cancelled, message: "cancelled"))
    } else {
      result = .failure(HTTPTransportError(code: .timeout, message: "deadline passed"))
    }
    return try result.get()
  }
}
