import NostrEvent
import NostrPushCore

/// One challenge the gateway issues before an attestation or an assertion
/// (`POST /v1/installations/challenges`, `POST /v1/delegations/challenges`): 32 random bytes,
/// unpadded base64url, single use, live for `lifetimeSeconds`.
///
/// The gateway stores it with its owner and purpose and consumes it (whether the attestation
/// or assertion then passes or not); this type only makes the values.
public struct AppAttestChallenge: Sendable, Hashable {
  /// How long a challenge stays live: 300 s.
  public static let lifetimeSeconds: Int64 = 300
  /// The most live challenges one owner may hold (more is 429).
  public static let maxLivePerOwner = 8

  /// The challenge's id: 16 random bytes, 32 lowercase hex digits.
  public let id: String
  /// The challenge: 32 random bytes, unpadded base64url (43 characters).
  public let challenge: String
  /// When it stops being accepted, Unix seconds.
  public let expiresAt: Int64

  /// A fresh challenge issued at `now`, from the system's random source.
  public static func issue(now: Int64) -> AppAttestChallenge {
    AppAttestChallenge(
      id: Hex.encode(SystemRandom.bytes(16)), challenge: AppAttestBase64.urlEncoded(SystemRandom.bytes(32)),
      expiresAt: now + lifetimeSeconds)
  }

  /// Whether `text` is a challenge id as `issue` makes them (32 lowercase hex digits).
  public static func isID(_ text: String) -> Bool { Hex.isLowercaseHex(text, length: 32) }
}
