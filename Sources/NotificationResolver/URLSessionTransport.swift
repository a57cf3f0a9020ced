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

  private let session: URLSession
  private let delegate: CappedResponseDelegate

  /// Creates a transport with its own ephemeral session.
  public init() {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpShouldSetCookies = false
    configuration.httpCookieAcceptPolicy = .never
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    let delegate = CappedResponseDelegate()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    self.delegate = delegate
    self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
  }

  public func send(_ request: HTTPRequest, deadline: ContinuousClock.Instant) async throws(TransportError)
    -> HTTPResponse
  {
    guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
    else { throw TransportError(.invalidURL, "not an http(s) URL") }
    let remaining = ContinuousClock.now.duration(to: deadline)
    guard remaining > .zero else { throw TransportError(.timeout, "deadline already passed") }
    var urlRequest = URLRequest(url: url)
    urlRequest.httpMethod = request.method
    urlRequest.timeoutInterval = max(0.05, remaining.seconds)
    for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
    if let body = request.body { urlRequest.httpBody = Data(body) }
    let task = session.dataTask(with: urlRequest)
    let exchange = CappedExchange(cap: request.maxResponseBytes)
    delegate.register(exchange, for: task.taskIdentifier)
    let timer = Task {
      try? await Task.sleep(until: deadline, clock: .continuous)
      if !Task.isCancelled, exchange.finish(.failure(TransportError(.timeout, "deadline passed"))) { task.cancel() }
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

extension Duration {
  /// The duration in seconds as a `Double`.
  var seconds: Double {
    let parts = components
    return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
  }
}
