import NostrPushCore

/// Why a relay refused a lease: the first failed check of the validator table, as its exact
/// `invalid: …` text.
///
/// The relay sends `message` back in its `OK` answer. Equality and hashing use `code` only, as
/// for every error of the package: compare ``message`` to check the text the client will see.
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
    lhs.code == rhs.code
  }

  /// Hashes what `==` compares.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
  }
}

/// The domain of `LeaseRejection.Code`: the steps of the validator table.
public enum LeaseRejectionDomain: ErrorDomain {}

extension ErrorCode where Domain == LeaseRejectionDomain {
  /// The event's kind or content length.
  public static var event: Self { Self("event") }
  /// A public tag's shape, duplication or name.
  public static var tag: Self { Self("tag") }
  /// The `d` tag.
  public static var d: Self { Self("d") }
  /// The `expiration` tag.
  public static var expiration: Self { Self("expiration") }
  /// The `exec` tag or its key.
  public static var exec: Self { Self("exec") }
  /// The NIP-44 content.
  public static var decrypt: Self { Self("decrypt") }
  /// The plaintext's length or JSON.
  public static var parse: Self { Self("parse") }
  /// The plaintext's member set.
  public static var members: Self { Self("members") }
  /// The plaintext's member types.
  public static var schema: Self { Self("schema") }
  /// Version, generation and origin.
  public static var values: Self { Self("values") }
  /// App profile, transport, endpoint and subscription count of an active lease.
  public static var active: Self { Self("active") }
  /// A subscription's class, ignore list or suppression.
  public static var subscription: Self { Self("subscription") }
  /// A subscription or ignore filter.
  public static var filter: Self { Self("filter") }
}
