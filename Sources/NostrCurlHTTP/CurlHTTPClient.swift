internal import CCurl
import Foundation
import NostrHTTP
import NostrPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server side's HTTP client, on libcurl's multi interface: HTTP/2 multiplexed over one
/// connection per host, a test CA, a client certificate, a response cap, a deadline and
/// cancellation — what URLSession on Linux cannot do (it trusts only the system CA bundle, cannot
/// present a client certificate, and spins a core while it waits).
///
/// One thread of the client's own drives every transfer and sleeps in `curl_multi_poll` while
/// nothing is ready; callers only hand it a request and await the answer, so a thousand waiting
/// requests cost no thread and no CPU. Requests to one host share one connection: each waits
/// for a connection that can multiplex (`CURLOPT_PIPEWAIT`) rather than opening its own, and a
/// second connection opens only when the first is at the server's stream limit.
///
/// One client per credential: its client certificate (APNs certificate auth) and CA file apply
/// to every request it sends. Call ``shutdown()`` when done (it fails what is still in flight
/// and returns once the thread ended); dropping the client ends the thread too.
public final class CurlHTTPClient: HTTPTransport {
  /// The longest the client waits for a TCP + TLS connection, within the request's deadline.
  public static let connectTimeout: Duration = .seconds(10)
  /// The longest `curl_multi_poll` sleeps when nothing is in flight (a wake-up cuts it short).
  static let idlePollMilliseconds: Int32 = 60_000

  private let loop: CurlMultiLoop

  /// The default most connections to one host: a second, third or fourth opens only while the
  /// others are at the server's stream limit (APNs allows one stream until it has seen a valid
  /// token); past it requests wait for a free stream instead of opening a connection each.
  public static let defaultMaxConnectionsPerHost = 4

  /// A client trusting `caFile` (PEM; the system bundle when nil), presenting
  /// `clientCertificate` when given, holding at most `maxConnectionsPerHost` connections to a
  /// host (`CURLMOPT_MAX_HOST_CONNECTIONS`); `unreachable` when libcurl cannot make its multi
  /// handle.
  public init(
    caFile: String? = nil, clientCertificate: CurlClientCertificate? = nil,
    maxConnectionsPerHost: Int = defaultMaxConnectionsPerHost
  ) throws(HTTPTransportError) {
    loop = try CurlMultiLoop(
      settings: CurlMultiLoop.Settings(
        caFile: caFile, clientCertificate: clientCertificate,
        maxConnectionsPerHost: max(1, maxConnectionsPerHost)))
  }

  /// Sends `request` (HTTP/2 where the server offers it) and returns the whole response, or
  /// throws by `deadline`; `cancelled` at once when the task is cancelled.
  public func send(_ request: HTTPTransportRequest, deadline: ContinuousClock.Instant)
    async throws(HTTPTransportError) -> HTTPTransportResponse
  {
    try await send(request, deadline: deadline, requireHTTP2: false)
  }

  /// Sends `request`; with `requireHTTP2` an answer over anything but HTTP/2 is refused
  /// (`unreachable`), and `http://` URLs speak HTTP/2 with prior knowledge.
  public func send(_ request: HTTPTransportRequest, deadline: ContinuousClock.Instant, requireHTTP2: Bool)
    async throws(HTTPTransportError) -> HTTPTransportResponse
  {
    let lowered = request.url.lowercased()
    guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else {
      throw HTTPTransportError(code: .invalidURL, message: "not an http(s) URL")
    }
    guard !request.url.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F }) else {
      throw HTTPTransportError(code: .invalidURL, message: "control character or space in the URL")
    }
    let remaining = ContinuousClock.now.duration(to: deadline)
    guard remaining > .zero else {
      throw HTTPTransportError(code: .timeout, message: "deadline already passed")
    }
    let exchange = loop.makeExchange(
      cap: request.maxResponseBytes, requireHTTP2: requireHTTP2, keepsPrefix: request.keepsPrefixPastCap)
    let outcome = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<CurlExchange.Outcome, Never>) in
        exchange.result.attach(continuation)
        loop.submit(exchange, request: request, timeout: remaining)
      }
    } onCancel: {
      exchange.result.resume(with: .failure(HTTPTransportError(code: .cancelled, message: "cancelled")))
      loop.cancel(exchange.id)
    }
    return try outcome.get()
  }

  /// The CPU time the client's thread has used (user + system, `getrusage(RUSAGE_THREAD)` read
  /// on that thread): what a test reads to show a waiting client sleeps.
  package func threadCPUTime() async -> Duration {
    await loop.threadCPUTime()
  }

  /// How many connections libcurl has opened for this client so far.
  package var connectionsOpened: Int { loop.connectionsOpened }

  /// Fails every request in flight (`cancelled`) and ends the client's thread.
  public func shutdown() async {
    await loop.stop()
  }

  /// A client dropped without ``shutdown()`` still ends its thread (without waiting for it).
  deinit { loop.requestStop() }
}

/// A client certificate and its key, PEM files, presented on every TLS connection of a client
/// (APNs certificate auth).
public struct CurlClientCertificate: Sendable, Hashable {
  /// The PEM certificate (chain) file.
  public var certificateFile: String
  /// The PEM private key file (unencrypted).
  public var keyFile: String

  /// A certificate and key.
  public init(certificateFile: String, keyFile: String) {
    self.certificateFile = certificateFile
    self.keyFile = keyFile
  }
}
