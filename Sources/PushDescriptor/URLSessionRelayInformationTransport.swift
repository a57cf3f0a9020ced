import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: one ephemeral `URLSession` per request, no cookies, no cache, no
/// redirects, and a body cap enforced while the bytes arrive.
///
/// A fresh session per request keeps nothing between relays; the per-request cost is small next
/// to the network round trip.
public struct URLSessionRelayInformationTransport: RelayInformationTransport {
  /// Creates the transport.
  public init() {}

  /// Sends `request`; throws once the body would pass `maxBodyBytes`, on cancellation, or on
  /// any network failure.
  public func send(_ request: URLRequest, maxBodyBytes: Int) async throws -> RelayInformationResponse {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpShouldSetCookies = false
    configuration.httpCookieAcceptPolicy = .never
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.timeoutIntervalForRequest = request.timeoutInterval
    configuration.timeoutIntervalForResource = request.timeoutInterval
    let download = BoundedDownload(maxBodyBytes: maxBodyBytes)
    // A serial queue: response, data and completion callbacks must arrive in order.
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let session = URLSession(configuration: configuration, delegate: download, delegateQueue: queue)
    defer { session.invalidateAndCancel() }
    let task = session.dataTask(with: request)
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        download.start(task, continuation: continuation)
      }
    } onCancel: {
      download.finish(.failure(CancellationError()))
    }
  }
}

/// Collects one response body up to a cap and hands the outcome to exactly one continuation.
///
/// `@unchecked Sendable`: URLSession calls the delegate on its own queue while the caller's task
/// may cancel concurrently; every mutable property is read and written only under `lock`.
private final class BoundedDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private let maxBodyBytes: Int
  private let lock = NSLock()
  private var body: [UInt8] = []
  private var status = 0
  private var task: URLSessionDataTask?
  private var continuation: CheckedContinuation<RelayInformationResponse, any Error>?
  private var outcome: Result<RelayInformationResponse, any Error>?

  init(maxBodyBytes: Int) {
    self.maxBodyBytes = maxBodyBytes
  }

  func start(
    _ task: URLSessionDataTask, continuation: CheckedContinuation<RelayInformationResponse, any Error>
  ) {
    lock.lock()
    if let outcome {
      lock.unlock()
      task.cancel()
      continuation.resume(with: outcome)
      return
    }
    self.task = task
    self.continuation = continuation
    lock.unlock()
    task.resume()
  }

  /// Settles the outcome once; later calls (a cancelled task still delivering data) do nothing.
  func finish(_ result: Result<RelayInformationResponse, any Error>) {
    lock.lock()
    guard outcome == nil else {
      lock.unlock()
      return
    }
    outcome = result
    body = []
    let continuation = self.continuation
    self.continuation = nil
    let task = self.task
    lock.unlock()
    if case .failure = result { task?.cancel() }
    continuation?.resume(with: result)
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    if status != 200 {
      finish(.success(RelayInformationResponse(status: status, body: [])))
      completionHandler(.cancel)
      return
    }
    if response.expectedContentLength > Int64(maxBodyBytes) {
      finish(.failure(BodyTooLarge(limit: maxBodyBytes)))
      completionHandler(.cancel)
      return
    }
    lock.lock()
    self.status = status
    lock.unlock()
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    lock.lock()
    guard outcome == nil else {
      lock.unlock()
      return
    }
    let fits = body.count + data.count <= maxBodyBytes
    if fits { body.append(contentsOf: data) }
    lock.unlock()
    if !fits { finish(.failure(BodyTooLarge(limit: maxBodyBytes))) }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    if let error {
      finish(.failure(error))
      return
    }
    // A refused redirect completes without a response callback; its status is on the task.
    let finalStatus = (task.response as? HTTPURLResponse)?.statusCode ?? 0
    lock.lock()
    let response = RelayInformationResponse(status: status == 0 ? finalStatus : status, body: body)
    lock.unlock()
    finish(.success(response))
  }
}

/// The body passed the cap; nothing past it was kept.
private struct BodyTooLarge: Error, CustomStringConvertible {
  var limit: Int
  var description: String { "the body is larger than \(limit) bytes" }
}
