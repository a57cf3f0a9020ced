/// Why `PushLease` could not build a lease or set up a validator, before anything was signed.
///
/// The codes are the ones `nostr-push lease` prints, in the CLI's check order; equality and
/// hashing use `code` and `field` only, so a test matches a failure without its wording.
public struct LeaseBuildError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A stable, machine-readable reason (snake case, as the CLI prints it).
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The snake-case code.
    public let rawValue: String

    /// Creates a code from its snake-case text.
    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// The NIP-11 document holds no valid push descriptor (CLI only).
    public static let invalidDescriptor = Code(rawValue: "invalid_descriptor")
    /// The secret key file is unreadable, not 64 hex or `nsec1…`, or not a valid scalar (CLI only).
    public static let invalidSecretKey = Code(rawValue: "invalid_secret_key")
    /// The app profile is not advertised with that transport, or is longer than `max_string_len`.
    public static let invalidAppProfile = Code(rawValue: "invalid_app_profile")
    /// The endpoint grant is empty or longer than `max_endpoint_len` bytes.
    public static let invalidEndpoint = Code(rawValue: "invalid_endpoint")
    /// The generation is outside 1…2^53−1.
    public static let invalidGeneration = Code(rawValue: "invalid_generation")
    /// The installation id is not 32 lowercase hex characters.
    public static let invalidInstallationID = Code(rawValue: "invalid_installation_id")
    /// A joined or muted channel id is not a lowercase UUID v4.
    public static let invalidChannelID = Code(rawValue: "invalid_channel_id")
    /// The muted channels need more ignore filters than the relay allows.
    public static let tooManyMutedChannels = Code(rawValue: "too_many_muted_channels")
    /// The plan needs more subscriptions than the relay allows.
    public static let tooManySubscriptions = Code(rawValue: "too_many_subscriptions")
    /// The plaintext would be rejected by the relay's validator; the message is its full text.
    public static let invalidSubscriptions = Code(rawValue: "invalid_subscriptions")
    /// The lease would expire at or before `now` (the grant has run out).
    public static let grantExpired = Code(rawValue: "grant_expired")
    /// The plaintext is longer than `max_plaintext_len` bytes (or than NIP-44 can carry).
    public static let plaintextTooLong = Code(rawValue: "plaintext_too_long")
    /// The encrypted content is longer than `max_content_len` bytes.
    public static let contentTooLong = Code(rawValue: "content_too_long")
    /// `created_at` is outside 0…2^53−1, so the event cannot be signed.
    public static let invalidCreatedAt = Code(rawValue: "invalid_created_at")
    /// A push secret key names no descriptor key (or none was given): the validator cannot open leases.
    public static let unknownPushKey = Code(rawValue: "unknown_push_key")
    /// Encryption or signing failed in the layer below (a key the curve refuses).
    public static let encryptionFailed = Code(rawValue: "encryption_failed")
  }

  /// The stable reason.
  public let code: Code
  /// A human-readable explanation (for `invalid_subscriptions`, the validator's `invalid: …` text).
  public let message: String
  /// The input at fault (`joined[3]`, `endpoint`), when one applies.
  public let field: String?

  /// Creates an error.
  public init(_ code: Code, _ message: String, field: String? = nil) {
    self.code = code
    self.message = message
    self.field = field
  }

  public var description: String { "\(code.rawValue): \(message)" }

  public static func == (lhs: LeaseBuildError, rhs: LeaseBuildError) -> Bool {
    lhs.code == rhs.code && lhs.field == rhs.field
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(field)
  }
}
