import NostrPushCore

/// Why a relay refused a lease: the first failed check of the validator table, as its exact
/// `invalid: …` text.
///
/// The relay sends `message` back in its `OK` answer; equality and hashing use `message` only,
/// so a test compares the text the client will see.
public struct LeaseRejection: Error, Sendable, Hashable, CustomStringConvertible {
  /// The step of the validator table that failed (a coarse grouping for logs and metrics); its
  /// values are the static members of `ErrorCode` over `LeaseRejectionDomain`.
  public typealias Code = ErrorCode<LeaseRejectionDomain>

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

  /// The relay's answer text, `invalid: <reason>`.
  public var description: String { message }

  /// Equal when the codes are (the wording is not compared).
  public static func == (lhs: LeaseRejection, rhs: LeaseRejection) -> Bool {
    lhs.message == rhs.message
  }

  /// Hashes what `==` compares.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(message)
  }
}

/// The domain of `LeaseRejection.Code`: the steps of the validator table.
public enum LeaseRejectionDomain: ErrorDomain {}

extension ErrorCode where Domain == LeaseRejectionDomain {
  /// The event's kind or content length.
  package static var event: Self { "event" }
  /// A public tag's shape, duplication or name.
  package static var tag: Self { "tag" }
  /// The `d` tag.
  package static var d: Self { "d" }
  /// The `expiration` tag.
  package static var expiration: Self { "expiration" }
  /// The `exec` tag or its key.
  package static var exec: Self { "exec" }
  /// The NIP-44 content.
  package static var decrypt: Self { "decrypt" }
  /// The plaintext's length or JSON.
  package static var parse: Self { "parse" }
  /// The plaintext's member set.
  package static var members: Self { "members" }
  /// The plaintext's member types.
  package static var schema: Self { "schema" }
  /// Version, generation and origin.
  package static var values: Self { "values" }
  /// App profile, transport, endpoint and subscription count of an active lease.
  package static var active: Self { "active" }
  /// A subscription's class, ignore list or suppression.
  package static var subscription: Self { "subscription" }
  /// A subscription or ignore filter.
  package static var filter: Self { "filter" }
}
