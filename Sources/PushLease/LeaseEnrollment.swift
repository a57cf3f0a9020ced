/// What an app keeps per (relay origin, account) so that every lease it publishes replaces the
/// last one: the installation id and the last generation and `created_at` it used.
///
/// Encoded with snake_case keys (`origin`, `pubkey`, `d`, `last_generation`, `last_created_at`,
/// `grant_expires_at`, null when unknown). Call `next(now:)` and save the result **before**
/// signing, so no publish — failed or unanswered — reuses a generation, and an enroll followed
/// by a revoke in the same second is never a stale replacement.
public struct LeaseEnrollment: Sendable, Hashable, Codable {
  /// The generation and `created_at` of the next lease to sign.
  public struct Stamp: Sendable, Hashable {
    /// `lastGeneration + 1`.
    public var generation: Int64
    /// max(now, `lastCreatedAt` + 1).
    public var createdAt: Int64
  }

  /// The relay's `push.origin`.
  public var origin: String
  /// The account's pubkey (64 lowercase hex).
  public var pubkey: String
  /// The lease's `d`: one per (origin, account), new on reinstall.
  public var installationID: InstallationID
  /// The highest generation ever handed out for this address (0 before the first lease); only
  /// ``next(now:)`` moves it.
  public private(set) var lastGeneration: Int64
  /// The latest `created_at` ever handed out for this address (0 before the first lease); only
  /// ``next(now:)`` moves it.
  public private(set) var lastCreatedAt: Int64
  /// When the endpoint grant expires (Unix seconds), or nil when unknown.
  public var grantExpiresAt: Int64?

  /// Creates an enrollment; a new one starts at generation 0 with a fresh installation id.
  public init(
    origin: String, pubkey: String, installationID: InstallationID = .generate(), lastGeneration: Int64 = 0,
    lastCreatedAt: Int64 = 0, grantExpiresAt: Int64? = nil
  ) {
    self.origin = origin
    self.pubkey = pubkey
    self.installationID = installationID
    self.lastGeneration = lastGeneration
    self.lastCreatedAt = lastCreatedAt
    self.grantExpiresAt = grantExpiresAt
  }

  /// The next lease's generation and `created_at` (Unix seconds `now`), recorded as the new
  /// last values; the app saves the enrollment before it signs.
  public mutating func next(now: Int64) -> Stamp {
    let stamp = Stamp(
      generation: lastGeneration == .max ? .max : lastGeneration + 1,
      createdAt: max(now, lastCreatedAt == .max ? .max : lastCreatedAt + 1))
    lastGeneration = stamp.generation
    lastCreatedAt = stamp.createdAt
    return stamp
  }

  private enum CodingKeys: String, CodingKey {
    case origin, pubkey
    case installationID = "d"
    case lastGeneration = "last_generation"
    case lastCreatedAt = "last_created_at"
    case grantExpiresAt = "grant_expires_at"
  }

  /// Decodes the value, checking it as the validating initialiser does.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    origin = try container.decode(String.self, forKey: .origin)
    pubkey = try container.decode(String.self, forKey: .pubkey)
    installationID = try container.decode(InstallationID.self, forKey: .installationID)
    lastGeneration = try container.decode(Int64.self, forKey: .lastGeneration)
    lastCreatedAt = try container.decode(Int64.self, forKey: .lastCreatedAt)
    grantExpiresAt = try container.decodeIfPresent(Int64.self, forKey: .grantExpiresAt)
  }

  /// Encodes the value in the form `init(from:)` reads.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(origin, forKey: .origin)
    try container.encode(pubkey, forKey: .pubkey)
    try container.encode(installationID, forKey: .installationID)
    try container.encode(lastGeneration, forKey: .lastGeneration)
    try container.encode(lastCreatedAt, forKey: .lastCreatedAt)
    try container.encode(grantExpiresAt, forKey: .grantExpiresAt)
  }
}
