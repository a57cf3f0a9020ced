@_exported import NostrPushCore

/// Why a NIP-98 `Authorization` header was refused: one code per verification rule.
///
/// Equality compares `code` only (a NIP-98 failure names no field).
public typealias NIP98Error = DomainError<NIP98ErrorDomain>

/// The error domain of `NIP98Error`: its codes are the static members below.
public enum NIP98ErrorDomain: ErrorDomain {
}

extension ErrorCode where Domain == NIP98ErrorDomain {
  /// No `Authorization` header.
  public static var missingHeader: Self { Self("missing_header") }
  /// The scheme is not `Nostr`.
  public static var scheme: Self { Self("scheme") }
  /// Not base64, too long, or the decoded bytes are not an event.
  public static var malformed: Self { Self("malformed") }
  /// The event's id or signature does not verify.
  public static var invalidEvent: Self { Self("invalid_event") }
  /// The kind is not 27235.
  public static var wrongKind: Self { Self("wrong_kind") }
  /// `created_at` is more than the window away from now.
  public static var expired: Self { Self("expired") }
  /// The `u` tag is missing or names another URL.
  public static var urlMismatch: Self { Self("url_mismatch") }
  /// The `method` tag is missing or names another method.
  public static var methodMismatch: Self { Self("method_mismatch") }
  /// The request has a body but the event no `payload` tag.
  public static var payloadMissing: Self { Self("payload_missing") }
  /// The `payload` tag is not the SHA-256 of the body.
  public static var payloadMismatch: Self { Self("payload_mismatch") }
  /// `requireNonce` is set and the event has no `nonce` tag.
  public static var nonceMissing: Self { Self("nonce_missing") }
  /// The event id was already accepted and its `created_at` is still within the window.
  public static var replayed: Self { Self("replayed") }
  /// The replay store could not burn the id: it holds its capacity of live ids, or its database
  /// did not answer. The header was not used; a server answers 503 and the client may retry.
  public static var unavailable: Self { Self("unavailable") }
}
