import NostrPushCore

/// Why a relay information document gives no usable push descriptor, and which field says so.
///
/// Callers treat every such error as "no push capability" (fail closed); tests match `field`
/// and `code`, so equality ignores the human-readable message.
public struct PushDescriptorError: NostrPushError {
  /// A stable, machine-readable reason; the raw values are the codes `cli.md` prints.
  public enum Code: String, Sendable, Hashable, CaseIterable {
    /// A required member is absent.
    case missing
    /// A member has the wrong JSON type (a boolean where an integer belongs, a string for an array …).
    case wrongType = "wrong_type"
    /// A member has the right type but a value the spec does not allow.
    case invalidValue = "invalid_value"
    /// A member that the strict part of the document does not define.
    case unknownField = "unknown_field"
    /// A JSON member name or an id that must be unique appears twice.
    case duplicate
    /// `supported_extensions` does not name the push extension.
    case notAdvertised = "not_advertised"
    /// The HTTP fetch failed: no connection, a status other than 200, a redirect, a timeout,
    /// cancellation, or a body over the cap.
    case transport
  }

  /// The stable reason.
  public var code: Code
  /// A dotted path with array indices (`push.keys[1].current`); `document` for the root and
  /// `http` for transport failures.
  public var field: String?
  /// A human-readable explanation.
  public var message: String

  /// Creates an error.
  public init(code: Code, field: String?, message: String) {
    self.code = code
    self.field = field
    self.message = message
  }

  /// The field path used for problems with the document as a whole.
  public static let documentField = "document"
  /// The field path used for transport failures.
  public static let httpField = "http"

  public var description: String { "\(field ?? "-"): \(code.rawValue): \(message)" }

  static func transport(_ message: String) -> PushDescriptorError {
    PushDescriptorError(code: .transport, field: httpField, message: message)
  }
}
