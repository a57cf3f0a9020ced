import Foundation
import NostrEvent
import NostrHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches a relay's NIP-11 document over HTTP and validates its push descriptor, failing closed.
///
/// Every transport failure is `http`/`transport`, which a client treats as "no push capability":
/// no enrollment, no lease.
public struct PushDiscovery: Sendable {
  /// The largest body read: 256 KiB, far above any real NIP-11 document, small enough to hold.
  public static let maxBodyBytes = 256 * 1024
  /// How long a fetch may take when the caller gives no deadline.
  public static let defaultTimeout: Duration = .seconds(8)
  /// The media type NIP-11 asks for.
  package static let mediaType = "application/nostr+json"

  /// The HTTP client used for the `GET`.
  package var transport: any HTTPTransport

  /// Creates a discovery client; by default over the process's shared `URLSessionHTTPTransport`.
  public init(transport: any HTTPTransport = URLSessionHTTPTransport.shared) {
    self.transport = transport
  }

  /// The HTTP URL of a relay's information document: `ws`→`http`, `wss`→`https`, an empty path
  /// becomes `/`; nil for anything that is not an absolute `ws`, `wss`, `http` or `https` URL.
  package static func informationURL(forRelay relay: String) -> URL? {
    guard let (origin, rest, _) = RelayOrigin.parse(relay) else { return nil }
    return URL(string: origin.url(path: rest.isEmpty ? "/" : rest))
  }

  /// Fetches and validates the document of `relay` before `deadline`.
  ///
  /// `protocols` are the generations the caller accepts (both by default); `requiredAppProfile`
  /// applies to `nip-pl` only, as in `RelayDocument(bytes:protocols:requiredAppProfile:)`.
  ///
  /// - Throws: `http`/`transport` for any fetch failure (including the deadline and
  ///   cancellation), otherwise what `RelayDocument(bytes:)` throws.
  public func discover(
    relay: String, protocols: Set<PushProtocol> = Set(PushProtocol.allCases),
    requiredAppProfile: PushAppProfile? = nil, deadline: ContinuousClock.Instant
  ) async throws(PushDescriptorError) -> RelayDocument {
    let body = try await fetchDocument(relay: relay, deadline: deadline)
    return try RelayDocument(
      bytes: body, protocols: protocols, requiredAppProfile: requiredAppProfile)
  }

  /// Fetches and validates the document of `relay` within `timeout` (8 s by default).
  public func discover(
    relay: String, protocols: Set<PushProtocol> = Set(PushProtocol.allCases),
    requiredAppProfile: PushAppProfile? = nil, timeout: Duration = PushDiscovery.defaultTimeout
  ) async throws(PushDescriptorError) -> RelayDocument {
    try await discover(
      relay: relay, protocols: protocols, requiredAppProfile: requiredAppProfile,
      deadline: .now + timeout)
  }

  /// Fetches the raw bytes of `relay`'s information document: a 200 whose whole body arrived
  /// within the cap before `deadline`.
  ///
  /// Use it when the permissive document is wanted whether or not it offers push.
  package func fetchDocument(
    relay: String, deadline: ContinuousClock.Instant
  ) async throws(PushDescriptorError) -> [UInt8] {
    guard let url = Self.informationURL(forRelay: relay) else {
      throw .transport("\"\(relay)\" is not a ws, wss, http or https URL")
    }
    let request = HTTPTransportRequest(
      url: url.absoluteString, method: "GET", headers: ["Accept": Self.mediaType],
      maxResponseBytes: Self.maxBodyBytes)
    guard ContinuousClock.now < deadline else { throw .transport("the deadline passed before the request") }
    // The transport should honour the deadline and the cap; a caller-supplied one that does not
    // is cut off at the deadline, and its oversized body refused.
    let transport = self.transport
    let outcome = await DeadlineRace.value(by: deadline, cancelsOperation: true) {
      () async -> Result<HTTPTransportResponse, HTTPTransportError> in
      do throws(HTTPTransportError) {
        return .success(try await transport.send(request, deadline: deadline))
      } catch {
        return .failure(error)
      }
    }
    let response: HTTPTransportResponse
    switch outcome {
    case .success(let answer)?: response = answer
    case .failure(let error)?: throw .transport("the fetch failed: \(error)")
    case nil: throw .transport("no complete response before the deadline")
    }
    guard response.status == 200 else {
      throw .transport("the relay answered HTTP \(response.status), not 200")
    }
    guard response.body.count <= Self.maxBodyBytes else {
      throw .transport("the body is larger than \(Self.maxBodyBytes) bytes")
    }
    return response.body
  }
}
