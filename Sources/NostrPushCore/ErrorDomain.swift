/// The module an error comes from: a caseless enum per module that names its codes, the extra
/// detail its errors carry.
///
/// A module declares `public enum NIP44ErrorDomain: ErrorDomain {}` and
/// `public typealias NIP44Error = DomainError<NIP44ErrorDomain>`; everything else (the fields,
/// equality, the initializer) is shared.
public protocol ErrorDomain: Sendable {
  /// Machine-readable extra facts some modules attach (a byte offset, an SQLite result code, an
  /// HTTP status); `Never` when there are none.
  associatedtype Detail: Sendable = Never
}
