import Foundation

/// Renders `nostr:` profile mentions in a body: `name` from the cache when known, else the
/// compact npub; at most ``maxLookups`` cache reads per body.
final class MentionNames: Sendable {
  /// The most cache lookups one body may cause; later mentions show the compact npub.
  static let maxLookups = 16

  private let limit: Int
  private let lookup: @Sendable (String) -> String?
  private let lookups = Locked(0)

  init(limit: Int, lookup: @escaping @Sendable (String) -> String?) {
    self.limit = limit
    self.lookup = lookup
  }

  /// The text after `@` for `entity` (`npub1…` or `nprofile1…`), or nil when it is not valid.
  @Sendable func render(_ entity: String) -> String? {
    guard let pubkey = KeyDisplay.pubkey(fromProfileEntity: entity) else { return nil }
    let mayLookUp = lookups.withLock { lookups in
      guard lookups < limit else { return false }
      lookups += 1
      return true
    }
    if mayLookUp, let name = lookup(pubkey), !name.allSatisfy(\.isWhitespace) { return name }
    return KeyDisplay.compact(pubkey)
  }
}
