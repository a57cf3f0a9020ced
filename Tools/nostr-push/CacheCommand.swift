import EnrichmentCache
import Foundation
import NostrJSON

/// `nostr-push cache stats|remove-account|add-account`: inspect and manage the enrichment cache.
struct CacheCommand: CLICommand {
  static let name = "cache"
  static let summary = "Inspect and manage the enrichment cache"
  static let usage = """
    usage: nostr-push cache stats --cache FILE
           nostr-push cache remove-account --cache FILE --pubkey HEX
           nostr-push cache add-account --cache FILE --pubkey HEX

    stats prints {"profiles":n,"channels":n,"memberships":n,"avatars":n,"deliveries":n,"bytes":n}
    (bytes: database file plus its WAL). It only reads: a file that is not a cache is refused
    (exit 1) and left as it is. remove-account deletes every row of the account and
    records a tombstone; add-account registers the account and clears a tombstone.
    """

  static func run(_ arguments: [String]) async throws -> Int32 {
    guard let action = arguments.first else {
      throw UsageError("missing action (stats, remove-account, add-account)")
    }
    let rest = Array(arguments.dropFirst())
    switch action {
    case "stats":
      let reader = try ArgumentReader(rest, valueFlags: ["cache"])
      _ = try reader.positionals(atMost: 0)
      let path = try reader.required("cache")
      guard FileManager.default.fileExists(atPath: path) else {
        CLIOutput.error("nostr-push cache: no cache file at \(path)")
        return ExitCode.failure
      }
      // Inspection never writes: opened read-only, never created, migrated or moved aside.
      let stats: CacheStats
      do throws(CacheError) {
        stats = try EnrichmentCache.inspect(path: path)
      } catch {
        CLIOutput.error("nostr-push cache: \(path): \(error.code): \(error.message)")
        return ExitCode.failure
      }
      print(
        JSONObject([
          "profiles": .integer(Int64(stats.profiles)), "channels": .integer(Int64(stats.channels)),
          "memberships": .integer(Int64(stats.memberships)), "avatars": .integer(Int64(stats.avatars)),
          "deliveries": .integer(Int64(stats.deliveries)), "bytes": .integer(stats.bytes),
        ]))
    case "remove-account", "add-account":
      let reader = try ArgumentReader(rest, valueFlags: ["cache", "pubkey"])
      _ = try reader.positionals(atMost: 0)
      let path = try reader.required("cache")
      let pubkey = try reader.required("pubkey").lowercased()
      guard pubkey.utf8.count == 64, pubkey.allSatisfy(\.isHexDigit) else {
        CLIOutput.error("nostr-push cache: --pubkey must be 64 hex characters")
        return ExitCode.failure
      }
      let cache = try open(path)
      let now = EnrichmentCache.systemClock()
      if action == "add-account" {
        try cache.addAccount(pubkey, now: now)
        print(JSONObject(["added": .bool(true)]))
      } else {
        let rows = try cache.removeAccount(pubkey, now: now)
        print(JSONObject(["removed": .bool(true), "rows": .integer(Int64(rows))]))
      }
    default:
      throw UsageError("unknown action '\(action)'")
    }
    return ExitCode.success
  }

  private static func open(_ path: String) throws -> EnrichmentCache {
    try EnrichmentCache(path: path)
  }

  private static func print(_ object: JSONObject) {
    CLIOutput.line(JSONWriter.string(.object(object)))
  }
}
