/// Why a relay refused a lease: the first failed check of the validator table, as its exact
/// `invalid: …` text.
///
/// The relay sends `message` back in its `OK` answer; equality and hashing use `message` only,
/// so a test compares the text the client will see.
public struct LeaseRejection: Error, Sendable, Hashable, CustomStringConvertible {
  /// The step of the validator table that failed (a coarse grouping for logs and metrics).
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The snake-case step name.
    public let rawValue: String

    /// Creates a step from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// The event's kind or content length.
    public static let event = Code(rawValue: "event")
    /// A public tag's shape, duplication or name.
    public static let tag = Code(rawValue: "tag")
    /// The `d` tag.
    public static let d = Code(rawValue: "d")
    /// The `expiration` tag.
    public static let expiration = Code(rawValue: "expiration")
    /// The `exec` tag or its key.
    public static let exec = Code(rawValue: "exec")
    /// The NIP-44 content.
    public static let decrypt = Code(rawValue: "decrypt")
    /// The plaintext's length or JSON.
    public static let parse = Code(rawValue: "parse")
    /// The plaintext's member set.
    public static let members = Code(rawValue: "members")
    /// The plaintext's member types.
    public static let schema = Code(rawValue: "schema")
    /// Version, generation and origin.
    public static let values = Code(rawValue: "values")
    /// App profile, transport, endpoint and subscription count of an active lease.
    public static let active = Code(rawValue: "active")
    /// A subscription's class, ignore list or suppression.
    public static let subscription = Code(rawValue: "subscription")
    /// A subscription or ignore filter.
    public static let filter = Code(rawValue: "filter")
  }

  /// The step that failed.
  public let code: Code
  /// The text the relay answers with: `invalid: ` and the reason (`invalid: lease ttl too long`).
  public let message: String

  /// Creates a rejection for `reason` (the text after `invalid: `) found at step `code`.
  public init(_ code: Code, _ reason: String) {
    self.code = code
    self.message = "invalid: " + reason
  }

  /// The reason without its `invalid: ` prefix.
  public var reason: String { String(message.dropFirst("invalid: ".count)) }

  public var description: String { message }

  public static func == (lhs: LeaseRejection, rhs: LeaseRejection) -> Bool {
    lhs.message == rhs.message
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(message)
  }
}
