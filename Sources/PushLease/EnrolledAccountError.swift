/// Why a saved ``EnrolledAccount`` could not be read: the bytes are not its JSON, or a member is
/// missing, of the wrong type or fails its check (`field` names it, `message` says why).
public typealias EnrolledAccountError = DomainError<EnrolledAccountErrorDomain>

/// The error domain of ``EnrolledAccountError``: its codes are the static members below.
public enum EnrolledAccountErrorDomain: ErrorDomain {}

extension ErrorCode where Domain == EnrolledAccountErrorDomain {
  /// The saved account is not valid JSON, is over ``EnrolledAccount/maxJSONBytes``, or a member
  /// is missing, unknown, of the wrong type or out of bounds.
  public static var invalidAccount: Self { Self("invalid_account") }
}
