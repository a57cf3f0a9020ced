/// A stable, machine-readable reason in one module's error domain: a snake_case string, as the
/// command line prints it.
///
/// Codes are public static members declared by the module that defines the domain
/// (`extension ErrorCode where Domain == NIP44ErrorDomain { public static var invalidMAC: Self {
/// Self("invalid_mac") } }`), so a module can add one without breaking callers, and a caller can
/// name every code it may meet. Only the package mints codes (the initialiser is `package`, and
/// there is no string-literal form): a caller compares with the static members, never with a
/// string of its own. They are not a frozen enum: switch over them with a `default`. The domain
/// keeps one module's codes from mixing with another's.
public struct ErrorCode<Domain: ErrorDomain>: Hashable, Sendable, CustomStringConvertible {
  /// The snake_case name.
  public let rawValue: String

  /// The code named `rawValue`: for a module's static members only.
  package init(_ rawValue: String) { self.rawValue = rawValue }

  /// The snake_case name.
  public var description: String { rawValue }
}
