/// The constants of lease acceptance and back-fill, one set for every lease store (SQLite and
/// PostgreSQL), so the two backends bound an author and reach back alike.
public enum LeasePolicy {
  /// An author's rows at an origin, active or not, are bounded by this many times
  /// `max_leases_per_pubkey`: a new address past it is refused (`lease_quota_exceeded`).
  public static let rowsPerLeaseQuota = 4
  /// How long an inactive row stays past its `expires_at` (a day) before an accept of its author,
  /// or the PostgreSQL sweeper, prunes it.
  public static let inactiveRetentionSeconds: Int64 = 86_400
  /// How far back an accepted active lease's back-fill reaches (120 s); recorded events older than
  /// this are pruned.
  public static let backfillWindowSeconds: Int64 = 120
  /// The most back-fill candidates one accepted lease meets (the newest within the window).
  public static let maxBackfillCandidates = 256
}
