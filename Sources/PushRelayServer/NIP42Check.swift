import NostrEvent
import NostrJSON

/// The server side of NIP-42: whether an `AUTH` event answers this connection's challenge for
/// this relay, beside `NIP98Verifier` for HTTP.
///
/// Rules, first failure answers: a well-formed event of kind 22242; id, then signature; the
/// `challenge` tag equals the one sent; the `relay` tag names one of `relayURLs` (compared after
/// NIP-98's URL normalisation); `created_at` within ``window`` of now.
public struct NIP42Check: Sendable {
  /// How far an `AUTH` event's `created_at` may be from now: 600 s.
  public static let window: Int64 = 600
  /// The NIP-42 kind.
  public static let kind = EventKind.clientAuthentication

  /// The URLs a `relay` tag may name (the public origin and the listener's own `ws://` URL).
  public let relayURLs: [String]

  /// A check accepting `relayURLs`.
  public init(relayURLs: [String]) {
    self.relayURLs = relayURLs.map { NIP98URL.normalized($0) }
  }

  /// The authenticated pubkey, or the `invalid: …` reason the `OK` carries.
  public func check(_ value: JSONValue, challenge: String, now: Int64) -> Result<String, Refusal> {
    let event: Event
    do {
      event = try Event(jsonValue: value)
    } catch {
      return .failure(Refusal("invalid: malformed event: \(error.field ?? "event"): \(error.message)"))
    }
    guard event.kind == Self.kind else {
      return .failure(Refusal("invalid: AUTH event must be kind \(Self.kind)"))
    }
    switch event.verify() {
    case .valid: break
    case .idMismatch:
      return .failure(Refusal("invalid: invalid event id: computed \(event.computedID()), got \(event.id)"))
    case .badSignature: return .failure(Refusal("invalid: invalid schnorr signature"))
    }
    guard event.tagValues("challenge").first == challenge else {
      return .failure(Refusal("invalid: challenge does not match"))
    }
    guard let relay = event.tagValues("relay").first, relayURLs.contains(NIP98URL.normalized(relay)) else {
      return .failure(Refusal("invalid: relay tag does not match"))
    }
    guard abs(event.createdAt - now) <= Self.window else {
      return .failure(Refusal("invalid: AUTH event too old or too new"))
    }
    return .success(event.pubkey)
  }

  /// Why an `AUTH` was refused: the `OK` message.
  public struct Refusal: Error, Sendable, Hashable {
    /// The `OK` text (`invalid: …`).
    public let message: String
    init(_ message: String) { self.message = message }
  }
}
