import AppAttest

/// The App Attest key a verified attestation yields, stored with its installation (counter 0).
public struct AttestedKeyRecord: Sendable, Hashable {
  /// The key id, 64 lowercase hex digits (SHA-256 of the key).
  public var keyID: String
  /// The key, an uncompressed P-256 point (65 bytes).
  public var publicKey: [UInt8]
  /// Apple's receipt, kept for a later fraud-metric refresh.
  public var receipt: [UInt8]

  /// A record of a verified attestation's key.
  public init(keyID: String, publicKey: [UInt8], receipt: [UInt8]) {
    self.keyID = keyID
    self.publicKey = publicKey
    self.receipt = receipt
  }
}

/// `POST /v1/installations/challenges` or `/v1/delegations/challenges`, validated.
public struct AttestChallengeIssue: Sendable, Hashable {
  /// The request's NIP-98 id.
  public var auth: AuthBurn
  /// The owner.
  public var owner: String
  /// What the challenge is for: `installation:<app profile>` or `delegation:<handle>`; a
  /// challenge is consumed only by a request of the same owner and purpose.
  public var purpose: String
  /// For a delegation challenge, the installation, which must be the owner's and live.
  public var handle: String?
  /// The challenge made.
  public var challenge: AppAttestChallenge
  /// Now.
  public var now: Int64
  /// The most live challenges per owner.
  public var maxLive: Int

  /// An issue.
  public init(
    auth: AuthBurn, owner: String, purpose: String, handle: String?, challenge: AppAttestChallenge,
    now: Int64,
    maxLive: Int
  ) {
    self.auth = auth
    self.owner = owner
    self.purpose = purpose
    self.handle = handle
    self.challenge = challenge
    self.now = now
    self.maxLive = maxLive
  }
}

/// What a challenge issue became.
public enum ChallengeIssueResult: Sendable, Hashable {
  /// Stored; the challenge is live.
  case issued
  /// The owner holds the most live challenges (429 `too_many_challenges`).
  case tooMany
  /// The installation is not the owner's live one (404 `not_found`).
  case notFound
  /// The NIP-98 id was burned already.
  case authReplayed
}

/// An installation's App Attest state, read before an asserted route.
public struct InstallationAttestation: Sendable, Hashable {
  /// The installation's app profile (whose configuration says whether App Attest is required).
  public var appProfile: String
  /// The attested key, nil when the installation was registered without one.
  public var publicKey: [UInt8]?
  /// The stored counter.
  public var counter: Int64

  /// A state.
  public init(appProfile: String, publicKey: [UInt8]?, counter: Int64) {
    self.appProfile = appProfile
    self.publicKey = publicKey
    self.counter = counter
  }
}
