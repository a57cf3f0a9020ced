/// A lease the validator accepted: its public address and lifetime and what its plaintext asks.
///
/// The relay's store takes it from here (staleness, generation, quota, endpoint uniqueness);
/// nothing in it has been compared with earlier leases yet.
public struct OpenedLease: Sendable, Hashable {
  /// The replaceable address of a lease: kind 30350, the author and the `d` tag.
  public struct Address: Sendable, Hashable, CustomStringConvertible {
    /// The lease kind.
    package static let kind = LeaseBuilder.kind

    /// The author's pubkey (64 lowercase hex).
    public var pubkey: String
    /// The `d` tag as sent (1…64 bytes; the builder writes an `InstallationID`).
    public var d: String

    /// Names a lease by its author and `d` tag, the key a relay's store keeps it under.
    package init(pubkey: String, d: String) {
      self.pubkey = pubkey
      self.d = d
    }

    /// `30350:<pubkey>:<d>`, the NIP-01 address form.
    public var description: String { "\(Self.kind):\(pubkey):\(d)" }
  }

  /// What the lease asks of the relay.
  public enum State: Sendable, Hashable {
    /// Wake `endpoint` through `transport` for events matching `subscriptions`.
    ///
    /// `appProfile` is the plaintext's `app_profile` for a `nip-pl` relay and nil for a
    /// `buzz-push-v1` relay, whose leases carry none. `endpointHash` is the SHA-256 of the
    /// endpoint's UTF-8 bytes as 64 lowercase hex, for stores that index or compare endpoints
    /// without keeping them in the clear.
    case active(
      appProfile: String?, transport: String, endpoint: String, endpointHash: String,
      subscriptions: [LeaseSubscription])
    /// Revoke whatever this address asked before.
    case tombstone
  }

  /// The lease's address.
  public var address: Address
  /// The event id (64 lowercase hex).
  public var eventID: String
  /// The event's `created_at`.
  public var createdAt: Int64
  /// The `expiration` tag's Unix seconds.
  public var expiration: Int64
  /// The id of the push key the lease was encrypted to (`exec`).
  public var keyID: String
  /// The plaintext's `origin` (equal to the tenant origin).
  public var origin: String
  /// The plaintext's generation, 1…2^53−1.
  public var generation: Int64
  /// Active or tombstone, with the active lease's request.
  public var state: State

  /// Creates an opened lease (the validator's result; tests and stores may build their own).
  public init(
    address: Address, eventID: String, createdAt: Int64, expiration: Int64, keyID: String, origin: String,
    generation: Int64, state: State
  ) {
    self.address = address
    self.eventID = eventID
    self.createdAt = createdAt
    self.expiration = expiration
    self.keyID = keyID
    self.origin = origin
    self.generation = generation
    self.state = state
  }

  /// Whether this lease is active (not a tombstone).
  public var isActive: Bool {
    if case .active = state { return true }
    return false
  }
}
