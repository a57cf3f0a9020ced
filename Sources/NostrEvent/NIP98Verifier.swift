import Foundation
import NostrJSON

/// Checks NIP-98 `Authorization` headers against the request they arrived with.
///
/// It applies the seven rules in order and remembers accepted ids in a bounded replay set, so
/// one verifier should serve every request of a server.
public final class NIP98Verifier: Sendable {
  /// The longest header accepted (in characters): far above a real auth event, and a bound on
  /// the work an unauthenticated client can cause.
  public static let maxHeaderLength = 64 * 1024

  /// How far `created_at` may be from now, in seconds.
  public let window: Int64
  private let replays: ReplaySet

  /// Creates a verifier accepting events within `window` seconds of now and refusing an id seen
  /// in the last `replayWindow` seconds; at most `replayCapacity` ids are remembered.
  public init(window: Int64 = 60, replayWindow: Int64 = 120, replayCapacity: Int = 10_000) {
    self.window = window
    self.replays = ReplaySet(window: replayWindow, capacity: replayCapacity)
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
    guard !overflow, distance.magnitude <= window.magnitude else {
      throw NIP98Error(
        code: .expired, message: "created_at \(event.createdAt) is more than \(window) s from \(now)")
    }
    guard let signedURL = event.tagValues("u").first,
      NIP98URL.normalized(signedURL) == NIP98URL.normalized(url)
    else {
      throw NIP98Error(code: .urlMismatch, message: "the u tag does not name \(url)")
    }
    guard let signedMethod = event.tagValues("method").first,
      signedMethod.uppercased() == method.uppercased()
    else {
      throw NIP98Error(code: .methodMismatch, message: "the method tag does not name \(method)")
    }
    let payload = event.tagValues("payload").first
    if let body, !body.isEmpty, payload == nil {
      throw NIP98Error(code: .payloadMissing, message: "the request has a body but no payload tag")
    }
    if let payload, payload != Hex.encode(SHA256.hash(body ?? [])) {
      throw NIP98Error(code: .payloadMismatch, message: "the payload tag is not the SHA-256 of the body")
    }
    guard replays.insert(event.id, now: now) else {
      throw NIP98Error(code: .replayed, message: "event \(event.id) was already used")
    }
    return event
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
