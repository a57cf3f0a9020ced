/// The bytes one answer puts on the wire, honestly or shaped by a fault, and what happens to the
/// connection after them.
///
/// Built whole before the first byte is written, except the padding of an oversized body, which
/// is streamed from one shared chunk so that even a multi-megabyte fault costs no memory.
struct OutboundResponse {
  /// The bytes sent by the `notJSON` fault: an HTML page, as a misconfigured proxy would send.
  static let notJSONBody = Array("<!DOCTYPE html><html><body>502 upstream unavailable</body></html>".utf8)
  /// The size of one chunk of `oversizedBody` padding (64 KiB); the padding is never held whole.
  static let paddingChunkBytes = 64 * 1024
  /// The padding chunk: JSON-looking bytes that never form a complete value.
  static let paddingChunk = [UInt8](repeating: UInt8(ascii: "["), count: paddingChunkBytes)
  /// `count` padding bytes (for the WebSocket `oversized_body` fault, one frame at a time).
  static func padding(_ count: Int) -> [UInt8] { [UInt8](repeating: UInt8(ascii: "["), count: count) }

  /// The interim answer to `Expect: 100-continue`.
  static let continueInterim = OutboundResponse(
    bytes: Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), keepsOpen: true)

  /// The head and body bytes to send.
  var bytes: [UInt8]
  /// How many padding bytes follow `bytes`.
  var paddingBytes = 0
  /// Whether the connection serves another request afterwards (else it is closed).
  var keepsOpen: Bool
  /// Whether the connection speaks WebSocket once `bytes` (a 101) are sent.
  var upgrades = false
  /// An event this request stored, for the open WebSocket subscriptions that match it.
  var broadcast: RelayFixtureData.Entry?

  /// The 101 answer to a WebSocket upgrade with its `Sec-WebSocket-Accept` value.
  static func switchingProtocols(accept: String) -> OutboundResponse {
    let head =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Accept: \(accept)\r\n\r\n"
    var response = OutboundResponse(bytes: Array(head.utf8), keepsOpen: true)
    response.upgrades = true
    return response
  }

  /// The answer to a request: `response` as it is, or as `action` makes of it.
  ///
  /// `keepAlive` is what the client asked for; a fault that breaks the framing always closes.
  init(_ response: HTTPResponse, action: RelayFault.Action?, keepAlive: Bool) {
    switch action {
    case nil, .delay:
      self.init(framing: response, keepAlive: keepAlive)
    case .status(let status):
      self.init(framing: .error(status, "fault injected: status \(status)"), keepAlive: keepAlive)
    case .notJSON:
      self.init(framing: .json(200, Self.notJSONBody), keepAlive: keepAlive)
    case .body(let status, let contentType, let bytes):
      let safeType = String(contentType.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F })
      let custom = HTTPResponse(status: status, headers: [("Content-Type", safeType)], body: bytes)
      self.init(framing: custom, keepAlive: keepAlive)
    case .truncatedBody:
      let head = response.head(contentLength: response.body.count, keepAlive: false)
      self.init(bytes: head + response.body.prefix(response.body.count / 2), keepsOpen: false)
    case .oversizedBody(let bytes, let declaresLength):
      let padded = HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: [])
      let head = padded.head(contentLength: declaresLength ? bytes : nil, keepAlive: false)
      self.init(bytes: head, paddingBytes: max(0, bytes), keepsOpen: false)
    case .closeConnection:
      self.init(bytes: [], keepsOpen: false)
    }
  }

  /// An error answer after which the connection closes.
  static func rejection(status: Int, message: String) -> OutboundResponse {
    OutboundResponse(framing: .error(status, message), keepAlive: false)
  }

  private init(bytes: [UInt8], paddingBytes: Int = 0, keepsOpen: Bool) {
    self.bytes = bytes
    self.paddingBytes = paddingBytes
    self.keepsOpen = keepsOpen
  }

  private init(framing response: HTTPResponse, keepAlive: Bool) {
    let hasBody = response.status != 304 && response.status != 204
    let head = response.head(contentLength: hasBody ? response.body.count : nil, keepAlive: keepAlive)
    self.init(bytes: hasBody ? head + response.body : head, keepsOpen: keepAlive)
  }
}
