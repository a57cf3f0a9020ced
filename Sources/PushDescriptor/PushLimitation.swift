/// The limits a relay imposes on push leases (`push.limitation`), every one a positive integer.
///
/// Clients size their lease requests from these so the relay never has to refuse one.
public struct PushLimitation: Sendable, Hashable {
  /// The longest lease the descriptor may allow, in seconds: 30 days.
  package static let maxLeaseTTLCeiling = 2_592_000

  /// The member names in the spec's order, which is also the order they are checked and written.
  package static let memberNames: [String] = [
    "max_lease_ttl", "max_leases_per_pubkey", "max_subscriptions_per_lease", "max_kinds",
    "max_authors", "max_h", "max_tag_values", "max_ignore", "max_content_len",
    "max_plaintext_len", "max_endpoint_len", "max_string_len",
  ]

  /// The longest lease, in seconds (at most `maxLeaseTTLCeiling`).
  package var maxLeaseTTL: Int
  /// The most leases one pubkey may hold.
  package var maxLeasesPerPubkey: Int
  /// The most subscriptions in one lease.
  package var maxSubscriptionsPerLease: Int
  /// The most kinds in one subscription.
  package var maxKinds: Int
  /// The most authors in one subscription.
  package var maxAuthors: Int
  /// The most `h` values in one subscription.
  package var maxH: Int
  /// The most values of one tag filter.
  package var maxTagValues: Int
  /// The most entries in a lease's ignore list.
  package var maxIgnore: Int
  /// The largest lease content, in bytes.
  package var maxContentLen: Int
  /// The largest lease plaintext, in bytes.
  package var maxPlaintextLen: Int
  /// The longest push endpoint, in bytes.
  package var maxEndpointLen: Int
  /// The longest string member (origin, key id …), in UTF-8 bytes.
  package var maxStringLen: Int

  /// Creates a limitation from its twelve values.
  public init(
    maxLeaseTTL: Int, maxLeasesPerPubkey: Int, maxSubscriptionsPerLease: Int, maxKinds: Int,
    maxAuthors: Int, maxH: Int, maxTagValues: Int, maxIgnore: Int, maxContentLen: Int,
    maxPlaintextLen: Int, maxEndpointLen: Int, maxStringLen: Int
  ) {
    self.maxLeaseTTL = maxLeaseTTL
    self.maxLeasesPerPubkey = maxLeasesPerPubkey
    self.maxSubscriptionsPerLease = maxSubscriptionsPerLease
    self.maxKinds = maxKinds
    self.maxAuthors = maxAuthors
    self.maxH = maxH
    self.maxTagValues = maxTagValues
    self.maxIgnore = maxIgnore
    self.maxContentLen = maxContentLen
    self.maxPlaintextLen = maxPlaintextLen
    self.maxEndpointLen = maxEndpointLen
    self.maxStringLen = maxStringLen
  }

  /// Creates a limitation from its values in `memberNames` order; nil unless there are twelve.
  init?(orderedValues values: [Int]) {
    guard values.count == Self.memberNames.count else { return nil }
    self.init(
      maxLeaseTTL: values[0], maxLeasesPerPubkey: values[1], maxSubscriptionsPerLease: values[2],
      maxKinds: values[3], maxAuthors: values[4], maxH: values[5], maxTagValues: values[6],
      maxIgnore: values[7], maxContentLen: values[8], maxPlaintextLen: values[9],
      maxEndpointLen: values[10], maxStringLen: values[11])
  }

  /// The values in `memberNames` order.
  var orderedValues: [Int] {
    [
      maxLeaseTTL, maxLeasesPerPubkey, maxSubscriptionsPerLease, maxKinds, maxAuthors, maxH,
      maxTagValues, maxIgnore, maxContentLen, maxPlaintextLen, maxEndpointLen, maxStringLen,
    ]
  }
}
