internal import CCurl
import NostrHTTP
import NostrPushCore

/// One request's state on the client's thread: its easy handle, the header list it owns, the
/// response head and the body kept so far within the cap, and the one-time result.
///
/// `@unchecked Sendable`: every mutable field is touched only on the client's thread (libcurl's
/// callbacks run there); the caller reaches only `result`, a `ResumeOnce`.
final class CurlExchange: @unchecked Sendable {
  typealias Outcome = Result<HTTPTransportResponse, HTTPTransportError>

  let id: UInt64
  let cap: Int
  let requireHTTP2: Bool
  /// Whether a body over the cap ends as its first `cap` bytes, marked truncated, rather than
  /// `too_large` (``HTTPTransportRequest/keepsPrefixPastCap``).
  let keepsPrefix: Bool
  let result = ResumeOnce<Outcome>()
  var easy: UnsafeMutableRawPointer?
  var headerList: UnsafeMutablePointer<curl_slist>?
  var headers: [String: String] = [:]
  var body: [UInt8] = []
  var overCap = false

  init(id: UInt64, cap: Int, requireHTTP2: Bool, keepsPrefix: Bool) {
    self.id = id
    self.cap = cap
    self.requireHTTP2 = requireHTTP2
    self.keepsPrefix = keepsPrefix
  }

  /// Frees the easy handle and the header list (after the handle left the multi handle).
  func release() {
    if let easy { curl_easy_cleanup(easy) }
    if let headerList { curl_slist_free_all(headerList) }
    easy = nil
    headerList = nil
  }

  /// Keeps `count` body bytes; false (the transfer is then aborted) past the cap, keeping the
  /// first `cap` bytes when the exchange keeps prefixes.
  func receive(_ data: UnsafePointer<CChar>, count: Int) -> Bool {
    guard body.count + count <= cap else {
      overCap = true
      if keepsPrefix {
        let room = cap - body.count
        data.withMemoryRebound(to: UInt8.self, capacity: room) {
          body.append(contentsOf: UnsafeBufferPointer(start: $0, count: room))
        }
      } else {
        body = []
      }
      return false
    }
    data.withMemoryRebound(to: UInt8.self, capacity: count) {
      body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
    }
    return true
  }

  /// Takes one header line: a status line starts a new head (after a 1xx), a field is kept
  /// with its name lower-cased; a repeated field's values are joined with `, `.
  func receiveHeader(_ line: UnsafePointer<CChar>, count: Int) {
    let bytes = line.withMemoryRebound(to: UInt8.self, capacity: count) {
      Array(UnsafeBufferPointer(start: $0, count: count))
    }
    if bytes.starts(with: Array("HTTP/".utf8)) {
      headers = [:]
      return
    }
    guard let colon = bytes.firstIndex(of: 0x3A) else { return }
    let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    let name = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
    var value = bytes[(colon + 1)...]
    while let first = value.first, isSpace(first) { value = value.dropFirst() }
    while let last = value.last, isSpace(last) { value = value.dropLast() }
    let text = String(decoding: value, as: UTF8.self)
    if let earlier = headers[name] {
      headers[name] = earlier + ", " + text
    } else {
      headers[name] = text
    }
  }
}

/// libcurl's body callback: keeps the bytes in the exchange, or aborts past the cap.
let curlWriteCallback: nostrpush_curl_write_callback = { data, size, count, user in
  guard let data, let user else { return 0 }
  let total = size * count
  let exchange = Unmanaged<CurlExchange>.fromOpaque(user).takeUnretainedValue()
  return exchange.receive(data, count: total) ? total : 0
}

/// libcurl's header callback: one header line at a time.
let curlHeaderCallback: nostrpush_curl_write_callback = { data, size, count, user in
  guard let data, let user else { return 0 }
  let total = size * count
  Unmanaged<CurlExchange>.fromOpaque(user).takeUnretainedValue().receiveHeader(data, count: total)
  return total
}
