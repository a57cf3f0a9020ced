internal import CCurl
import Foundation
import NostrHTTP
import NostrPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread that owns one libcurl multi handle and every easy handle in it.
///
/// Callers queue commands (add a transfer, cancel one, read the thread's CPU time, stop) under a
/// lock and wake the thread with `curl_multi_wakeup`, the one libcurl call made from other
/// threads. The thread applies the commands, runs `curl_multi_perform`, finishes the transfers
/// libcurl reports done, and sleeps in `curl_multi_poll` until a socket is ready, libcurl's next
/// timeout (a transfer's deadline among them) or a wake-up.
///
/// `@unchecked Sendable`: `multi`, `active` and the easy handles are touched only on the
/// thread; the shared state is one `Locked` value.
final class CurlMultiLoop: @unchecked Sendable {
  struct Settings: Sendable {
    var caFile: String?
    var clientCertificate: CurlClientCertificate?
    var maxConnectionsPerHost: Int
  }

  private enum Command {
    case add(CurlExchange, HTTPTransportRequest, timeoutMilliseconds: Int)
    case cancel(UInt64)
    case measure(CheckedContinuation<Duration, Never>)
  }

  private struct Shared {
    var commands: [Command] = []
    var nextID: UInt64 = 0
    var stopping = false
    var stopWaiters: [CheckedContinuation<Void, Never>] = []
    var ended = false
    var connectionsOpened = 0
  }

  private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

  private let settings: Settings
  private let multi: UnsafeMutableRawPointer
  private let shared = Locked(Shared())
  private var active: [UInt64: CurlExchange] = [:]

  init(settings: Settings) throws(HTTPTransportError) {
    guard Self.globalInit, let multi = curl_multi_init() else {
      throw HTTPTransportError(code: .unreachable, message: "libcurl could not make a multi handle")
    }
    self.settings = settings
    self.multi = multi
    _ = nostrpush_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
    _ = nostrpush_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, settings.maxConnectionsPerHost)
    let thread = Thread { [self] in run() }
    thread.name = "NostrCurlHTTP"
    thread.start()
  }

  deinit { curl_multi_cleanup(multi) }

  var connectionsOpened: Int { shared.withLock { $0.connectionsOpened } }

  func makeExchange(cap: Int, requireHTTP2: Bool, keepsPrefix: Bool = false) -> CurlExchange {
    let id = shared.withLock { shared in
      shared.nextID += 1
      return shared.nextID
    }
    return CurlExchange(id: id, cap: max(0, cap), requireHTTP2: requireHTTP2, keepsPrefix: keepsPrefix)
  }

  func submit(_ exchange: CurlExchange, request: HTTPTransportRequest, timeout: Duration) {
    let milliseconds = max(1, Int(clamping: timeout.wholeMilliseconds))
    let refused = shared.withLock { shared in
      if shared.stopping { return true }
      shared.commands.append(.add(exchange, request, timeoutMilliseconds: milliseconds))
      return false
    }
    if refused {
      exchange.result.resume(
        with: .failure(HTTPTransportError(code: .cancelled, message: "client shut down")))
      return
    }
    curl_multi_wakeup(multi)
  }

  func cancel(_ id: UInt64) {
    shared.withLock { $0.commands.append(.cancel(id)) }
    curl_multi_wakeup(multi)
  }

  func threadCPUTime() async -> Duration {
    await withCheckedContinuation { continuation in
      let ended = shared.withLock { shared in
        if shared.ended { return true }
        shared.commands.append(.measure(continuation))
        return false
      }
      if ended { continuation.resume(returning: .zero) } else { curl_multi_wakeup(multi) }
    }
  }

  /// Asks the thread to end, without waiting.
  func requestStop() {
    let ended = shared.withLock { shared in
      shared.stopping = true
      return shared.ended
    }
    if !ended { curl_multi_wakeup(multi) }
  }

  func stop() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ended = shared.withLock { shared in
        shared.stopping = true
        if shared.ended { return true }
        shared.stopWaiters.append(continuation)
        return false
      }
      if ended { continuation.resume() } else { curl_multi_wakeup(multi) }
    }
  }

  // MARK: The thread

  private func run() {
    while true {
      let (commands, stopping) = shared.withLock { shared in
        defer { shared.commands = [] }
        return (shared.commands, shared.stopping)
      }
      for command in commands { apply(command) }
      if stopping {
        for id in Array(active.keys) {
          finish(id, .failure(HTTPTransportError(code: .cancelled, message: "client shut down")))
        }
        break
      }
      var running: Int32 = 0
      curl_multi_perform(multi, &running)
      collectFinished()
      let wait = active.isEmpty ? CurlHTTPClient.idlePollMilliseconds : 1000
      curl_multi_poll(multi, nil, 0, wait, nil)
    }
    let (waiters, leftover) = shared.withLock { shared in
      shared.ended = true
      defer {
        shared.stopWaiters = []
        shared.commands = []
      }
      return (shared.stopWaiters, shared.commands)
    }
    for command in leftover {
      switch command {
      case .add(let exchange, _, _):
        exchange.result.resume(
          with: .failure(HTTPTransportError(code: .cancelled, message: "client shut down")))
      case .measure(let continuation): continuation.resume(returning: .zero)
      case .cancel: break
      }
    }
    for waiter in waiters { waiter.resume() }
  }

  private func apply(_ command: Command) {
    switch command {
    case .add(let exchange, let request, let timeout):
      if let error = start(exchange, request: request, timeoutMilliseconds: timeout) {
        exchange.release()
        exchange.result.resume(with: .failure(error))
      }
    case .cancel(let id):
      finish(id, .failure(HTTPTransportError(code: .cancelled, message: "cancelled")))
    case .measure(let continuation):
      continuation.resume(returning: Self.threadCPUTimeHere())
    }
  }

  /// The calling thread's CPU time (user + system): `getrusage(RUSAGE_THREAD)` on Linux, the
  /// thread's CPU clock elsewhere.
  private static func threadCPUTimeHere() -> Duration {
    #if os(Linux)
    var usage = rusage()
    // RUSAGE_THREAD (1): Glibc's module leaves out this GNU extension's name.
    getrusage(__rusage_who_t(1), &usage)
    let micros =
      (Int64(usage.ru_utime.tv_sec) + Int64(usage.ru_stime.tv_sec)) * 1_000_000
      + Int64(usage.ru_utime.tv_usec) + Int64(usage.ru_stime.tv_usec)
    return .microseconds(micros)
    #else
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    #endif
  }

  /// Makes the easy handle for `request` and adds it to the multi handle; the error when
  /// libcurl refuses an option.
  private func start(_ exchange: CurlExchange, request: HTTPTransportRequest, timeoutMilliseconds: Int)
    -> HTTPTransportError?
  {
    guard let easy = curl_easy_init() else {
      return HTTPTransportError(code: .unreachable, message: "libcurl could not make an easy handle")
    }
    exchange.easy = easy
    var failed: String?
    func long(_ option: CURLoption, _ value: Int, _ name: String) {
      if failed == nil, nostrpush_curl_easy_setopt_long(easy, option, value) != CURLE_OK { failed = name }
    }
    func string(_ option: CURLoption, _ value: String, _ name: String) {
      if failed == nil, nostrpush_curl_easy_setopt_string(easy, option, value) != CURLE_OK { failed = name }
    }
    string(CURLOPT_URL, request.url, "url")
    string(CURLOPT_PROTOCOLS_STR, "http,https", "protocols")
    long(CURLOPT_NOSIGNAL, 1, "nosignal")
    long(CURLOPT_FOLLOWLOCATION, 0, "followlocation")
    // Wait for a connection that may multiplex only where one can (TLS, HTTP/2 by ALPN): over
    // plain http every request would otherwise queue behind the first until its answer shows
    // that the connection is HTTP/1.1.
    long(CURLOPT_PIPEWAIT, request.url.lowercased().hasPrefix("https://") ? 1 : 0, "pipewait")
    long(CURLOPT_TIMEOUT_MS, timeoutMilliseconds, "timeout")
    long(
      CURLOPT_CONNECTTIMEOUT_MS,
      min(timeoutMilliseconds, Int(CurlHTTPClient.connectTimeout.wholeMilliseconds)), "connecttimeout")
    let isHTTPS = request.url.lowercased().hasPrefix("https://")
    let version =
      exchange.requireHTTP2 && !isHTTPS ? CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : CURL_HTTP_VERSION_2TLS
    long(CURLOPT_HTTP_VERSION, Int(version), "http_version")
    if let caFile = settings.caFile { string(CURLOPT_CAINFO, caFile, "cainfo") }
    if let certificate = settings.clientCertificate {
      string(CURLOPT_SSLCERT, certificate.certificateFile, "sslcert")
      string(CURLOPT_SSLCERTTYPE, "PEM", "sslcerttype")
      string(CURLOPT_SSLKEY, certificate.keyFile, "sslkey")
      string(CURLOPT_SSLKEYTYPE, "PEM", "sslkeytype")
    }
    switch request.method.uppercased() {
    case "GET": long(CURLOPT_HTTPGET, 1, "httpget")
    case "POST": long(CURLOPT_POST, 1, "post")
    default: string(CURLOPT_CUSTOMREQUEST, request.method, "method")
    }
    if let body = request.body {
      if failed == nil,
        nostrpush_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)) != CURLE_OK
      {
        failed = "postfieldsize"
      }
      let copied = body.withUnsafeBytes { bytes in
        nostrpush_curl_easy_setopt_pointer(
          easy, CURLOPT_COPYPOSTFIELDS,
          UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
      }
      if failed == nil, copied != CURLE_OK { failed = "copypostfields" }
    }
    var lines = request.headers.map { "\($0.key): \($0.value)" }
    if !request.headers.keys.contains(where: { $0.lowercased() == "accept-encoding" }) {
      lines.append("Accept-Encoding: identity")
    }
    lines.append("Expect:")
    for line in lines {
      guard !line.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
        return HTTPTransportError(code: .invalidURL, message: "line break in a header")
      }
      exchange.headerList = curl_slist_append(exchange.headerList, line)
    }
    if failed == nil,
      nostrpush_curl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, exchange.headerList) != CURLE_OK
    {
      failed = "httpheader"
    }
    let user = Unmanaged.passUnretained(exchange).toOpaque()
    if failed == nil,
      nostrpush_curl_easy_setopt_write(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback) != CURLE_OK
        || nostrpush_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, user) != CURLE_OK
        || nostrpush_curl_easy_setopt_write(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback) != CURLE_OK
        || nostrpush_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, user) != CURLE_OK
        || nostrpush_curl_easy_setopt_pointer(
          easy, CURLOPT_PRIVATE, UnsafeMutableRawPointer(bitPattern: UInt(exchange.id))) != CURLE_OK
    {
      failed = "callbacks"
    }
    if let failed {
      return HTTPTransportError(code: .invalidURL, message: "libcurl refused the option \(failed)")
    }
    guard curl_multi_add_handle(multi, easy) == CURLM_OK else {
      return HTTPTransportError(code: .unreachable, message: "libcurl refused the transfer")
    }
    active[exchange.id] = exchange
    return nil
  }

  /// Finishes every transfer libcurl reports done.
  private func collectFinished() {
    var remaining: Int32 = 0
    while let message = curl_multi_info_read(multi, &remaining) {
      var code = CURLE_OK
      guard let easy = nostrpush_curl_msg_done(message, &code) else { continue }
      var privateValue: UnsafeMutableRawPointer?
      _ = nostrpush_curl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &privateValue)
      let id = UInt64(UInt(bitPattern: privateValue))
      guard let exchange = active[id] else { continue }
      var connects = 0
      _ = nostrpush_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
      if connects > 0 { shared.withLock { $0.connectionsOpened += connects } }
      finish(id, outcome(of: exchange, easy: easy, code: code))
    }
  }

  private func outcome(of exchange: CurlExchange, easy: UnsafeMutableRawPointer, code: CURLcode)
    -> CurlExchange.Outcome
  {
    var status = 0
    _ = nostrpush_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
    if exchange.overCap {
      // A caller that keeps prefixes gets the first `cap` bytes; the rest was never read.
      if exchange.keepsPrefix, status != 0 {
        return .success(
          HTTPTransportResponse(
            status: status, headers: exchange.headers, body: exchange.body, isTruncated: true))
      }
      return .failure(
        HTTPTransportError(
          code: .tooLarge, message: "body over \(exchange.cap) bytes", detail: status == 0 ? nil : status))
    }
    guard code == CURLE_OK else {
      let failure = Self.error(for: code, responseStarted: status != 0)
      // A connection lost mid-body still delivers what arrived to a caller that keeps prefixes.
      if exchange.keepsPrefix, failure.code == .truncated, status != 0 {
        return .success(
          HTTPTransportResponse(
            status: status, headers: exchange.headers, body: exchange.body, isTruncated: true))
      }
      return .failure(failure)
    }
    if exchange.requireHTTP2 {
      var version = 0
      _ = nostrpush_curl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
      guard version == Int(CURL_HTTP_VERSION_2_0) else {
        return .failure(
          HTTPTransportError(code: .unreachable, message: "the server did not answer over HTTP/2"))
      }
    }
    return .success(HTTPTransportResponse(status: status, headers: exchange.headers, body: exchange.body))
  }

  private static func error(for code: CURLcode, responseStarted: Bool) -> HTTPTransportError {
    let text = String(cString: curl_easy_strerror(code))
    switch code {
    case CURLE_OPERATION_TIMEDOUT: return HTTPTransportError(code: .timeout, message: "deadline passed")
    case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
      return HTTPTransportError(code: .invalidURL, message: text)
    case CURLE_PARTIAL_FILE: return HTTPTransportError(code: .truncated, message: text)
    default:
      return HTTPTransportError(
        code: responseStarted ? .truncated : .unreachable, message: "libcurl: \(text)")
    }
  }

  /// Removes transfer `id` (if still active) and ends its exchange with `outcome`.
  private func finish(_ id: UInt64, _ outcome: CurlExchange.Outcome) {
    guard let exchange = active.removeValue(forKey: id) else { return }
    if let easy = exchange.easy { curl_multi_remove_handle(multi, easy) }
    exchange.release()
    exchange.result.resume(with: outcome)
  }
}
