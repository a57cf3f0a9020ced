import EnrichmentCache
import NostrEvent
import NostrHTTP
import NostrPushCore

/// Downloads a profile picture for a notification attachment, under the rules that keep the
/// relay's credentials and the user's device safe.
///
/// `https` only (plain `http` only to a loopback host); NIP-98 credentials only when the picture
/// shares the relay's canonical origin, never to another host; redirects never followed; a
/// conditional request when a previous copy has validators; PNG, JPEG, GIF or WebP by magic
/// number, nothing else.
package struct AvatarFetcher: Sendable {
  /// The largest avatar downloaded, in bytes.
  package static let maxBytes = 512 * 1024

  /// What a fetch produced.
  package enum Result: Sendable, Hashable {
    /// A new image with its validators.
    case image(bytes: [UInt8], format: ImageFormat, etag: String?, lastModified: String?)
    /// `304 Not Modified`: the stored copy is still current.
    case notModified
    /// Nothing usable; the reason is for diagnostics only.
    case refused(String)
  }

  /// The validators of a copy already stored.
  package struct Validators: Sendable, Hashable {
    /// The stored `ETag`.
    package var etag: String?
    /// The stored `Last-Modified`.
    package var lastModified: String?

    /// Creates validators.
    package init(etag: String?, lastModified: String?) {
      self.etag = etag
      self.lastModified = lastModified
    }
  }

  private let relay: RelayOrigin
  private let key: SecretKey
  private let transport: any HTTPTransport
  private let clock: UnixClock

  /// Creates a fetcher for pictures of senders on `relay`, authenticating as `key` on that origin
  /// only.
  package init(relay: RelayOrigin, key: SecretKey, transport: any HTTPTransport, clock: UnixClock) {
    self.relay = relay
    self.key = key
    self.transport = transport
    self.clock = clock
  }

  /// The canonical URL the picture would be requested from, or nil when it may not be fetched.
  package static func requestURL(for picture: String) -> (url: String, origin: RelayOrigin)? {
    guard let (origin, rest, webSocket) = RelayOrigin.parse(picture), !webSocket else { return nil }
    guard origin.isSecure || origin.isLoopback else { return nil }
    return (origin.url(path: rest.isEmpty ? "/" : rest), origin)
  }

  /// Fetches `picture`, conditionally when `validators` are given, by `deadline`.
  package func fetch(_ picture: String, validators: Validators?, deadline: ContinuousClock.Instant) async
    -> Result
  {
    guard let (url, origin) = Self.requestURL(for: picture) else {
      return .refused("not an https URL (or http to loopback)")
    }
    var headers: [String: String] = ["Accept": "image/png, image/jpeg, image/gif, image/webp"]
    if origin == relay {
      guard
        let header = try? NIP98.authorizationHeader(
          url: url, method: "GET", body: nil, key: key, now: clock.now())
      else { return .refused("could not sign") }
      headers["Authorization"] = header
    }
    if let etag = validators?.etag { headers["If-None-Match"] = etag }
    if let lastModified = validators?.lastModified { headers["If-Modified-Since"] = lastModified }
    let request = HTTPTransportRequest(
      url: url, method: "GET", headers: headers, maxResponseBytes: Self.maxBytes)
    let response: HTTPTransportResponse
    do {
      response = try await transport.send(request, deadline: deadline)
    } catch {
      return .refused("transport: \(error.code.rawValue)")
    }
    if response.status == 304, validators != nil { return .notModified }
    guard response.status == 200 else { return .refused("status \(response.status)") }
    guard let format = ImageFormat(sniffing: response.body) else {
      return .refused("not PNG, JPEG, GIF or WebP")
    }
    return .image(
      bytes: response.body, format: format, etag: response.headers["etag"],
      lastModified: response.headers["last-modified"])
  }
}
