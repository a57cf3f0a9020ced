import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPTransport`` over `URLSession`: no redirects, no cookies or cache, the response cap
/// enforced while the bytes arrive, and the deadline enforced as a whole-exchange limit.
///
/// One instance (``shared``) serves every request of a process; each request's state lives in
/// the session delegate, keyed by task.
public final class URLSessionTransport: HTTPTransport {
  /// The process-wide transport.
  public static let shared = URLSessionTransport()

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
  public func send(_ request: HTTPRequest, deadline: ContinuousClock.Instant) async throws(TransportError)
    -> HTTPResponse
  {
    guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https"
    else { throw TransportError(.invalidURL, "not an http(s) URL") }
    let remaining = ContinuousClock.now.duration(to: deadline)
    guard remaining > .zero else { throw TransportError(.timeout, "deadline already passed") }
    var urlRequest = URLRequest(url: url)
    urlRequest.httpMethod = request.method
    urlRequest.timeoutInterval = Self.idleTimeoutBackstop
    for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
    if let body = request.body { urlRequest.httpBody = Data(body) }
    let task = session.dataTask(with: urlRequest)
    let exchange = CappedExchange(cap: request.maxResponseBytes)
    delegate.register(exchange, for: task.taskIdentifier)
    let timer = Task {
      try? await Task.sleep(until: deadline, clock: .continuous)
      if !Task.isCancelled, exchange.finish(.failure(TransportError(.timeout, "deadline passed"))) {
        task.cancel()
      }
    }
    defer {
      timer.cancel()
      delegate.unregister(task.taskIdentifier)
    }
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        exchange.attach(continuation)
        task.resume()
      }
    } onCancel: {
      if exchange.finish(.failure(TransportError(.cancelled, "cancelled"))) { task.cancel() }
    }
    return try result.get()
  }
}
