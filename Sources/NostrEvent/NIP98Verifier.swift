import Foundation
import NostrJSON

/// Checks NIP-98 `Authorization` headers against the request they arrived with.
///
/// It applies the eight rules in order and burns accepted ids in its `NIP98ReplayStore` (a bounded
/// in-memory set by default) until their `created_at` leaves the window, so one verifier (or
/// one shared store) should serve every request of a server.
public final class NIP98Verifier: Sendable {
  /// The longest header accepted (in characters): far above a real auth event, and a bound on
  /// the work an unauthenticated client can cause.
  public static let maxHeaderLength = 64 * 1024

  /// How the `u` tag is compared with the expected URL.
  package enum URLMatch: Sendable, Hashable {
    /// After normalising both (scheme and host lower-cased, default port and one trailing `/` of
    /// the path removed): Buzz's leniency, the default.
    case normalized
    /// Byte for byte, as NIP-98's "MUST be exactly" reads.
    case exact
  }

  /// How the `method` tag is compared with the request method.
  package enum MethodMatch: Sendable, Hashable {
    /// Ignoring case, the default.
    case caseInsensitive
    /// Byte for byte.
    case exact
  }

  /// How far `created_at` may be from now, in seconds (the larger of `windowBack` and
  /// `windowAhead`, kept for callers that read one figure).
  package let window: Int64
  /// How many seconds `created_at` may lie before now.
  package let windowBack: Int64
  /// How many seconds `created_at` may lie after now.
  package let windowAhead: Int64
  /// How the `u` tag is compared.
  package let urlMatch: URLMatch
  /// How the `method` tag is compared.
  package let methodMatch: MethodMatch
  /// Whether a `payload` tag is required: `true` always, `false` never (a present tag is still
  /// checked), nil (the default) whenever the request has a body.
  package let requirePayload: Bool?
  /// Whether a `nonce` tag is required.
  package let requireNonce: Bool
  private let replays: any NIP98ReplayStore

  /// Creates a verifier accepting events within `window` seconds of now and refusing an id it
  /// accepted while that event's `created_at` is within the window; at most `replayCapacity` such
  /// live ids are remembered, and past that new headers are refused `unavailable` (never is a
  /// live id forgotten).
  public convenience init(window: Int64 = 60, replayCapacity: Int = 10_000) {
    self.init(windowBack: window, windowAhead: window, replays: ReplaySet(capacity: replayCapacity))
  }

  /// Creates a verifier accepting events within `window` seconds of now that burns accepted ids
  /// in `replays`: a store shared by every process serving one origin (`PostgresReplayStore`).
  public convenience init(window: Int64 = 60, replays: any NIP98ReplayStore) {
    self.init(windowBack: window, windowAhead: window, replays: replays)
  }

  /// Creates a verifier with every option NIP-98 leaves to the server: a window of `windowBack` seconds
  /// before and `windowAhead` after now, URL and method matching, and the payload and nonce rules.
  ///
  /// A server that wants exact NIP-98 (the gateway fixture) passes `.exact` for both matches and
  /// requires payload and nonce.
  package init(
    windowBack: Int64, windowAhead: Int64, urlMatch: URLMatch = .normalized,
    methodMatch: MethodMatch = .caseInsensitive, requirePayload: Bool? = nil, requireNonce: Bool = false,
    replayCapacity: Int = 10_000, replays: (any NIP98ReplayStore)? = nil
  ) {
    self.windowBack = Int64(clamping: windowBack.magnitude)
    self.windowAhead = Int64(clamping: windowAhead.magnitude)
    self.window = max(self.windowBack, self.windowAhead)
    self.urlMatch = urlMatch
    self.methodMatch = methodMatch
    self.requirePayload = requirePayload
    self.requireNonce = requireNonce
    self.replays = replays ?? ReplaySet(capacity: replayCapacity)
  }

  /// The auth event of a header valid for (`url`, `method`, `body`) at `now`.
  public func verify(
    header: String?, url: String, method: String, body: [UInt8]?, now: Int64
  ) throws(NIP98Error) -> Event {
    let event = try decode(header)
    guard event.kind == NIP98.kind else {
      throw NIP98Error(code: .wrongKind, message: "kind \(event.kind) is not \(NIP98.kind)")
    }
    let (distance, overflow) = now.subtractingReportingOverflow(event.createdAt)
    let inWindow = !overflow && (distance >= 0 ? distance <= windowBack : distance.magnitude <= windowAhead)
    guard inWindow else {
      throw NIP98Error(
        code: .expired,
        message:
          "created_at \(event.createdAt) is outside \(windowBack) s before to \(windowAhead) s after \(now)")
    }
    guard let signedURL = event.tagValues("u").first, urlMatches(signedURL, url) else {
      throw NIP98Error(code: .urlMismatch, message: "the u tag does not name \(url)")
    }
    guard let signedMethod = event.tagValues("method").first, methodMatches(signedMethod, method) else {
      throw NIP98Error(code: .methodMismatch, message: "the method tag does not name \(method)")
    }
    let payload = event.tagValues("payload").first
    let payloadRequired = requirePayload ?? !(body ?? []).isEmpty
    if payloadRequired, payload == nil {
      throw NIP98Error(code: .payloadMissing, message: "the request needs a payload tag")
    }
    if let payload, payload != Hex.encode(NostrSHA256.hash(body ?? [])) {
      throw NIP98Error(code: .payloadMismatch, message: "the payload tag is not the SHA-256 of the body")
    }
    if requireNonce, event.tagValues("nonce").first == nil {
      throw NIP98Error(code: .nonceMissing, message: "the auth event has no nonce tag")
    }
    // Kept until the event itself would be refused as expired: created_at + the window back.
    let (expiresAt, late) = event.createdAt.addingReportingOverflow(windowBack)
    try replays.burn(event.id, expiresAt: late ? Int64.max : expiresAt, now: now)
    return event
  }

  private func urlMatches(_ signed: String, _ expected: String) -> Bool {
    switch urlMatch {
    case .exact: Array(signed.utf8) == Array(expected.utf8)
    case .normalized: NIP98URL.normalized(signed) == NIP98URL.normalized(expected)
    }
  }

  private func methodMatches(_ signed: String, _ expected: String) -> Bool {
    switch methodMatch {
    case .exact: Array(signed.utf8) == Array(expected.utf8)
    case .caseInsensitive: signed.uppercased() == expected.uppercased()
    }
  }

  private func decode(_ header: String?) throws(NIP98Error) -> Event {
    guard let header, !header.isEmpty else {
      throw NIP98Error(code: .missingHeader, message: "no Authorization header")
    }
    guard header.utf8.count <= Self.maxHeaderLength else {
      throw NIP98Error(code: .malformed, message: "the header is longer than \(Self.maxHeaderLength) bytes")
    }
    let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, parts[0].lowercased() == "nostr" else {
      throw NIP98Error(code: .scheme, message: "the Authorization scheme is not Nostr")
    }
    let encoded = parts[1].trimmingCharacters(in: .whitespaces)
    guard let data = Data(base64Encoded: encoded) else {
      throw NIP98Error(code: .malformed, message: "the credentials are not base64")
    }
    let event: Event
    do {
      event = try Event(json: [UInt8](data))
    } catch {
      throw NIP98Error(code: .malformed, message: "the credentials are not an event: \(error.message)")
    }
    guard event.verify().isValid else {
      throw NIP98Error(code: .invalidEvent, message: "the auth event's id or signature does not verify")
    }
    return event
  }
}
