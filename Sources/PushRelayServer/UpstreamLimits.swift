import NostrJSON

/// What one upstream relay allows, from its NIP-11 `limitation` (`max_subscriptions`,
/// `max_filters`, `max_limit`), with the service's defaults when a value is absent or not a
/// positive integer.
///
/// Values per tag have no NIP-11 member; `max_values` is read when a relay offers it, else 256.
public struct UpstreamLimits: Sendable, Hashable {
  /// Subscriptions the service keeps open when the relay says nothing: 20.
  public static let defaultMaxSubscriptions = 20
  /// Filters per REQ when the relay says nothing: 10.
  public static let defaultMaxFilters = 10
  /// Values per filter list when the relay says nothing: 256.
  public static let defaultMaxValues = 256
  /// Stored events asked for per REQ (its `limit`) when the relay says nothing: 500.
  public static let defaultMaxLimit = 500

  /// The most open subscriptions.
  public var maxSubscriptions: Int
  /// The most filters per REQ.
  public var maxFilters: Int
  /// The most values in one list of a filter (`authors`, `#p`, …).
  public var maxValues: Int
  /// The `limit` each filter carries: the relay's `max_limit`; a page that fills it is followed
  /// by the next, older page.
  public var maxLimit: Int

  /// Limits given outright.
  public init(
    maxSubscriptions: Int = defaultMaxSubscriptions, maxFilters: Int = defaultMaxFilters,
    maxValues: Int = defaultMaxValues, maxLimit: Int = defaultMaxLimit
  ) {
    self.maxSubscriptions = max(1, maxSubscriptions)
    self.maxFilters = max(1, maxFilters)
    self.maxValues = max(1, maxValues)
    self.maxLimit = max(1, maxLimit)
  }

  /// The limits of a NIP-11 `limitation` object (nil: every default).
  public init(limitation: JSONObject?) {
    func read(_ name: String, _ fallback: Int) -> Int {
      guard let value = limitation?[name]?.integerValue, value > 0 else { return fallback }
      return Int(min(value, 100_000))
    }
    self.init(
      maxSubscriptions: read("max_subscriptions", Self.defaultMaxSubscriptions),
      maxFilters: read("max_filters", Self.defaultMaxFilters),
      maxValues: read("max_values", Self.defaultMaxValues), maxLimit: read("max_limit", Self.defaultMaxLimit))
  }
}
