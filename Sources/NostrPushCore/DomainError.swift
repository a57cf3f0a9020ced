/// The package's one error type: every module's error (`JSONError`, `EventError`, `NIP44Error`,
/// …) is this struct over its own `ErrorDomain`.
///
/// One shape means one way to handle any failure: switch on `code` (keep a `default`), show
/// `message`, point at `field`. Equality and hashing use `code` and `field` (from
/// `NostrPushError`), never the wording of `message`, and never `detail`.
public struct DomainError<Domain: ErrorDomain>: NostrPushError {
  /// The stable reason.
  public var code: ErrorCode<Domain>
  /// The field, member or argument at fault (a dotted path with indices), nil when none applies.
  public var field: String?
  /// A human-readable explanation (never secret material or message content).
  public var message: String
  /// The domain's extra facts, when it has any.
  package var detail: Domain.Detail?

  /// An error with a code, the field at fault when there is one, an explanation and any detail.
  public init(code: ErrorCode<Domain>, field: String? = nil, message: String, detail: Domain.Detail? = nil) {
    self.code = code
    self.field = field
    self.message = message
    self.detail = detail
  }

  /// The package's one rendering of an error for people, the same in every module:
  /// `code (field): message`, or `code: message` when no field applies.
  public var description: String {
    guard let field else { return "\(code): \(message)" }
    return "\(code) (\(field)): \(message)"
  }
}
