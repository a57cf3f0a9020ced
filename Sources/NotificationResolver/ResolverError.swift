@_exported import NostrPushCore

/// A configuration or input the resolver refuses, naming the field and why: what
/// `ResolverConfiguration.init` throws, so an extension that cannot build its configuration
/// shows the fallback at once.
///
/// Equality compares `code` and `field` only, so tests match the failure, not the wording.
public typealias ResolverError = DomainError<ResolverErrorDomain>

/// The error domain of `ResolverError`: its codes are the static members below.
public enum ResolverErrorDomain: ErrorDomain {
}

extension ErrorCode where Domain == ResolverErrorDomain {
  /// A relay or media URL that is not an acceptable `ws`/`wss`/`http`/`https` origin (the CLI's
  /// arguments).
  public static var invalidURL: Self { Self("invalid_url") }
  /// A secret key or public key that is not 64 hex characters (or a valid `nsec`): the
  /// configuration's `relayPubkey`.
  public static var invalidKey: Self { Self("invalid_key") }
  /// Filters that are not a JSON array of NIP-01 filter objects (the CLI's `--filters`).
  public static var invalidFilters: Self { Self("invalid_filters") }
  /// A `NotificationStrings` table entry whose `%` sequences do not fit its key (field: the key).
  public static var invalidStrings: Self { Self("invalid_strings") }
  /// A number outside its allowed range: the configuration's budget or query timeout.
  public static var outOfRange: Self { Self("out_of_range") }
}
