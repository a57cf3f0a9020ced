/// The module an error comes from: a caseless enum per module that names its codes, the extra
/// detail its errors carry, and how they read in a log.
///
/// A module declares `public enum NIP44ErrorDomain: ErrorDomain {}` and
/// `public typealias NIP44Error = DomainError<NIP44ErrorDomain>`; everything else (the fields,
/// equality, the initializer) is shared.
public protocol ErrorDomain: Sendable {
  /// Machine-readable extra facts some modules attach (a byte offset, an SQLite result code, an
  /// HTTP status); `Never` when there are none.
  associatedtype Detail: Sendable = Never

  /// The text of `error.description`. The default is `code (field): message`, or
  /// `code: message` without a field.
  static func describe(_ error: DomainError<Self>) -> String
}

extension ErrorDomain {
  /// `code (field): message`, or `code: message` without a field.
  public static func describe(_ error: DomainError<Self>) -> String {
    guard let field = error.field else { return "\(error.code): \(error.message)" }
    return "\(error.code) (\(field)): \(error.message)"
  }
}
