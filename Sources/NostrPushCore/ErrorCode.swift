/// A stable, machine-readable reason in one module's error domain: a snake_case string, as the
/// command line prints it.
///
/// Codes are static members declared by each module (`extension ErrorCode where Domain ==
/// NIP44ErrorDomain { public static let invalidMAC: Self = "invalid_mac" }`), so a module can
/// add one without breaking callers. They are not a frozen enum: switch over them with a
/// `default`. The domain keeps one module's codes from mixing with another's.
public struct ErrorCode<Domain: ErrorDomain>: RawRepresentable, Hashable, Sendable,
  ExpressibleByStringLiteral, CustomStringConvertible
{
  /// The snake_case name.
  public let rawValue: String

  /// A code with the given snake_case name.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// A code written as a string literal, for the modules' static members.
  public init(stringLiteral value: String) { self.rawValue = value }

  /// The snake_case name.
  public var description: String { rawValue }
}
