import NostrPushCore

/// Why a NIP-98 `Authorization` header was refused: one code per verification rule.
///
/// Equality compares `code` only (a NIP-98 failure names no field).
public struct NIP98Error: NostrPushError {
  /// A stable, machine-readable reason.
  public enum Code: String, Sendable, Hashable {
    /// No `Authorization` header.
    case missingHeader = "missing_header"
    /// The scheme is not `Nostr`.
    case scheme
    /// Not base64, too long, or the decoded bytes are not an event.
    case malformed
    /// The event's id or signature does not verify.
    case invalidEvent = "invalid_event"
    /// The kind is not 27235.
    case wrongKind = "wrong_kind"
    /// `created_at` is more than the window away from now.
    case expired
    /// The `u` tag is missing or names another URL.
    case urlMismatch = "url_mismatch"
    /// The `method` tag is missing or names another method.
    case methodMismatch = "method_mismatch"
    /// The request has a body but the event no `payload` tag.
    case payloadMissing = "payload_missing"
    /// The `payload` tag is not the SHA-256 of the body.
    case payloadMismatch = "payload_mismatch"
    /// `requireNonce` is set and the event has no `nonce` tag.
    case nonceMissing = "nonce_missing"
    /// The event id was already accepted within the replay window.
    case replayed
  }

  /// The stable reason.
  public var code: Code
  /// A human-readable explanation.
  public var message: String

  /// Creates an error.
  public init(code: Code, message: String) {
    self.code = code
    self.message = message
  }

  /// Always nil: the header as a whole is at fault.
  public var field: String? { nil }

  public var description: String { message }

}
