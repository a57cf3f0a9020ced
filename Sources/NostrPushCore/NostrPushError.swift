/// The one error shape of the package: a stable snake_case `code`, the `field` at fault when
/// there is one, and a human-readable `message`.
///
/// `DomainError` is its one implementation: every module's error (`JSONError`, `Bech32Error`,
/// `EventError`, `PushDescriptorError`, `CacheError`, …) is a `DomainError`, so a caller handles
/// them all the same way: switch on `code` (codes may be added, so keep a `default`), show
/// `message`, point at `field`. Generic code (a log line, a CLI error line) takes any
/// `NostrPushError`. Equality and hashing use
/// `code` and `field` only, so tests match failures without depending on wording.
public protocol NostrPushError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The type of the stable reason: its description is the snake_case name the command line
  /// prints.
  associatedtype Code: Hashable, Sendable, CustomStringConvertible

  /// The stable reason.
  var code: Code { get }
  /// The field, member or argument at fault (a dotted path with indices), nil when none applies.
  var field: String? { get }
  /// A human-readable explanation (never secret material or message content).
  var message: String { get }
}

extension NostrPushError {
  /// Equal when `code` and `field` are; the message is not compared.
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.field == rhs.field }

  /// Hashes `code` and `field`, as `==` compares them.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(field)
  }
}
