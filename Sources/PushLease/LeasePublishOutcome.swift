import NostrPushCore

/// What a relay answered to a published lease, read from its NIP-01 `OK`: accepted, already
/// held, or refused with a code an app can switch on (`README.md`) instead of message text.
public enum LeasePublishOutcome: Sendable, Hashable {
  /// Stored: `OK true ""`.
  case accepted
  /// The relay already holds this event: `OK true "duplicate: …"`.
  case duplicate
  /// Refused: `OK false` with the refusal's code and the relay's message.
  case refused(LeaseRefusal)

  /// The outcome of an `OK` with `accepted` and `message`.
  public init(accepted: Bool, message: String) {
    if accepted {
      self = message.hasPrefix("duplicate:") ? .duplicate : .accepted
    } else {
      self = .refused(LeaseRefusal(message: message))
    }
  }
}

/// A relay's refusal of a lease: a code and the relay's `OK` message.
///
/// The store's refusals have codes of their own (`stale_generation`, `endpoint_already_leased`,
/// …); every other `invalid:` answer is the lease judgement's (`invalid_lease`), and the NIP-01
/// prefixes `auth-required:`, `rate-limited:`, `blocked:`, `restricted:` and `error:` have theirs.
/// Equality is on the code, as for every error of the package.
public struct LeaseRefusal: Error, Sendable, Hashable, CustomStringConvertible {
  /// The refusal's code: one of the static members of `ErrorCode` over ``LeaseRefusalDomain``.
  public typealias Code = ErrorCode<LeaseRefusalDomain>

  /// Why the relay refused.
  public let code: Code
  /// The relay's message as sent (`invalid: stale generation`).
  public let message: String

  /// The refusal a relay's `OK false` `message` means.
  public init(message: String) {
    self.message = message
    if let reason = message.hasPrefix("invalid: ") ? String(message.dropFirst("invalid: ".count)) : nil {
      self.code = Self.storeReasons.first { $0.reason == reason }?.code ?? .invalidLease
    } else {
      let prefix = message.prefix { $0 != ":" }
      self.code = Self.prefixes[String(prefix)] ?? .unknown
    }
  }

  /// The store's refusal `code`, as the relay answers it: `invalid: ` and its reason.
  package init(store code: Code) {
    self.code = code
    self.message = "invalid: " + (Self.storeReasons.first { $0.code == code }?.reason ?? code.rawValue)
  }

  /// `code: message`.
  public var description: String { "\(code): \(message)" }

  /// Equal when the codes are (the wording is not compared).
  public static func == (lhs: LeaseRefusal, rhs: LeaseRefusal) -> Bool { lhs.code == rhs.code }

  /// Hashes what `==` compares.
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }

  /// The reasons of the relay's lease store (`Docs/VendoringPushRelay.md`'s acceptance table), one owner for
  /// the text the stores send and the code an app reads back.
  static let storeReasons: [(code: Code, reason: String)] = [
    (.staleGeneration, "stale generation"), (.staleReplacement, "stale replacement"),
    (.endpointAlreadyLeased, "endpoint already leased"), (.leaseQuotaExceeded, "lease quota exceeded"),
    (.sourceEventCollision, "source event collision"),
    (.leaseConstraintViolation, "lease constraint violation"),
  ]

  /// The NIP-01 machine-readable prefixes other than `invalid`.
  static let prefixes: [String: Code] = [
    "auth-required": .authRequired, "rate-limited": .rateLimited, "blocked": .blocked,
    "restricted": .restricted, "error": .relayError,
  ]
}

/// The domain of ``LeaseRefusal/Code``.
public enum LeaseRefusalDomain: ErrorDomain {}

extension ErrorCode where Domain == LeaseRefusalDomain {
  /// A lease for the same device with a generation not above the stored one.
  public static var staleGeneration: Self { Self("stale_generation") }
  /// A replacement older than (or as old as) the stored lease event.
  public static var staleReplacement: Self { Self("stale_replacement") }
  /// The endpoint is leased by another account or installation.
  public static var endpointAlreadyLeased: Self { Self("endpoint_already_leased") }
  /// The account holds the most leases the relay allows (`max_leases_per_pubkey`).
  public static var leaseQuotaExceeded: Self { Self("lease_quota_exceeded") }
  /// Another lease was made from the same source event.
  public static var sourceEventCollision: Self { Self("source_event_collision") }
  /// The store refused the lease for a constraint it could not name.
  public static var leaseConstraintViolation: Self { Self("lease_constraint_violation") }
  /// The lease judgement refused it (`invalid: …`, any reason not above).
  public static var invalidLease: Self { Self("invalid_lease") }
  /// The relay wants NIP-42 authentication first.
  public static var authRequired: Self { Self("auth_required") }
  /// The relay is limiting this client's rate.
  public static var rateLimited: Self { Self("rate_limited") }
  /// The relay blocks this author or client.
  public static var blocked: Self { Self("blocked") }
  /// The relay does not accept this event from this author.
  public static var restricted: Self { Self("restricted") }
  /// The relay failed (`error:`); retry later.
  public static var relayError: Self { Self("relay_error") }
  /// A message without a known prefix.
  public static var unknown: Self { Self("unknown") }
}
