@_exported import NostrPushCore

/// Why a relay information document gives no usable push descriptor, and which field says so.
///
/// Callers treat every such error as "no push capability" (fail closed); tests match `field`
/// and `code`, so equality ignores the human-readable message.
public typealias PushDescriptorError = DomainError<PushDescriptorErrorDomain>

/// The error domain of `PushDescriptorError`: its codes are the static members below.
public enum PushDescriptorErrorDomain: ErrorDomain {
}

extension ErrorCode where Domain == PushDescriptorErrorDomain {
  /// The relay's NIP-11 has neither `supported_extensions` nor `push`: it does not offer push at
  /// all (field `push`), as opposed to offering it wrongly.
  public static var noPush: Self { Self("no_push") }
  /// A required member is absent.
  public static var missing: Self { Self("missing") }
  /// A member has the wrong JSON type (a boolean where an integer belongs, a string for an array …).
  public static var wrongType: Self { Self("wrong_type") }
  /// A member has the right type but a value the spec does not allow.
  public static var invalidValue: Self { Self("invalid_value") }
  /// A member that the strict part of the document does not define.
  public static var unknownField: Self { Self("unknown_field") }
  /// A JSON member name or an id that must be unique appears twice.
  public static var duplicate: Self { Self("duplicate") }
  /// `supported_extensions` names neither push generation (`nip-pl`, `buzz-push-v1`), or not
  /// one the caller accepts.
  public static var notAdvertised: Self { Self("not_advertised") }
  /// The HTTP fetch failed: no connection, a status other than 200, a redirect, a timeout,
  /// cancellation, or a body over the cap.
  public static var transport: Self { Self("transport") }
}

extension DomainError where Domain == PushDescriptorErrorDomain {
  /// The `field` of a failure about the whole document (not JSON, not an object).
  package static var documentField: String { "document" }
  /// The `field` of a transport failure (unreachable, a non-2xx status, too large).
  package static var httpField: String { "http" }

  static func transport(_ message: String) -> PushDescriptorError {
    PushDescriptorError(code: .transport, field: httpField, message: message)
  }
}
