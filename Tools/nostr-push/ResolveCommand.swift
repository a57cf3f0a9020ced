import Bech32
import EnrichmentCache
import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore
import NotificationResolver
import PushLease

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `nostr-push resolve`: one wake to one notification line (see `Docs/CommandLine.md`).
enum ResolveCommand: CLICommand {
  static let name = "resolve"
  static let summary = "resolve one push wake into a notification (JSON line)"
  static let usage = """
    usage: nostr-push resolve --relay URL --secret-key-file FILE --cache FILE
                              [--subscriptions FILE] [--filters FILE] [--relay-pubkey HEX]
                              [--community NAME] [--muted-pubkeys FILE] [--window-hours 72] [--can-filter]
                              [--budget-ms 1500] [--query-timeout-ms 8000] [--linger-ms 0] [--now UNIX]
                              [--transport query|websocket] [--kill-after-claim]
                              [--zapper-pubkeys FILE] [--only-from FILE] [--muted-words FILE]
                              [--muted-hashtags FILE] [--muted-threads FILE]

    Queries the relay (NIP-98 POST /query, or REQ over one WebSocket with NIP-42) for the messages
    the wake was for, verifies them, claims the new ones in the cache, enriches the newest within
    the budget, marks them presented and prints one JSON line: the notification plan (a message,
    nothing new, or the fallback with its reason). Exits 0 whenever a line was printed.

    Social notifications: --zapper-pubkeys and --only-from are JSON arrays of 64-hex pubkeys (the
    account's LNURL zapper keys: only a receipt they signed shows an amount; the only senders shown),
    --muted-words and --muted-hashtags JSON arrays of strings (case-insensitive; a hashtag with or
    without #), --muted-threads a JSON array of 64-hex root event ids. Like --muted-pubkeys, each
    may instead be an object {"<account pubkey>":[…],…} for several accounts.
    """

  /// The shortest `--window-hours` (the resolver's 1 hour).
  static let minWindowHours: Int64 = 1
  /// The longest `--window-hours` (the resolver's 14 days).
  static let maxWindowHours: Int64 = 336
  /// The most a `--linger-ms` may ask for (one minute).
  static let maxLingerMilliseconds: Int64 = 60_000

  static func run(_ arguments: [String]) async throws -> Int32 {
    let reader = try ArgumentReader(
      arguments,
      valueFlags: [
        "relay", "secret-key-file", "cache", "filters", "subscriptions", "muted-pubkeys", "relay-pubkey",
        "community", "budget-ms",
        "query-timeout-ms", "linger-ms", "now", "transport", "window-hours", "zapper-pubkeys", "only-from",
        "muted-words", "muted-hashtags", "muted-threads",
      ],
      booleanFlags: ["can-filter", "kill-after-claim"], repeatableFlags: ["secret-key-file"])
    _ = try reader.positionals(atMost: 0)
    let relayURL = try reader.required("relay")
    _ = try reader.required("secret-key-file")
    let keyFiles = reader.all("secret-key-file")
    guard keyFiles.count <= NotificationResolver.maxAccounts else {
      throw UsageError("at most \(NotificationResolver.maxAccounts) --secret-key-file")
    }
    let cachePath = try reader.required("cache")
    let budget = try reader.integer("budget-ms", default: 1500)!
    let queryTimeout = try reader.integer("query-timeout-ms", default: 8000)!
    let linger = try reader.integer("linger-ms", default: 0)!
    guard (0...maxLingerMilliseconds).contains(linger) else {
      throw UsageError("--linger-ms must be between 0 and \(maxLingerMilliseconds)")
    }
    let windowHours = try reader.integer("window-hours", default: 72)!
    guard (minWindowHours...maxWindowHours).contains(windowHours) else {
      throw UsageError("--window-hours must be between \(minWindowHours) and \(maxWindowHours)")
    }
    let clock = try reader.integer("now").map(UnixClock.fixed) ?? .system
    let transportName = reader.value("transport") ?? QueryTransport.httpQuery.rawValue
    guard let queryTransport = QueryTransport(rawValue: transportName) else {
      throw UsageError("--transport must be query or websocket")
    }

    let options: ResolveOptions
    do {
      let relay = try RelayOrigin(relayURL)
      let filters = try reader.value("filters").map(FilterFile.read)
      var configurations: [ResolverConfiguration] = []
      for keyFile in keyFiles {
        let key = try SecretKeyFile.read(keyFile)
        let account = key.publicKeyHex
        // Default (`Docs/CommandLine.md`): the planner's mention subscription plus its direct-message one.
        let planned =
          filters == nil
          ? [
            SubscriptionPlanner.mentionSubscription(for: account),
            SubscriptionPlanner.directMessageSubscription(for: account),
          ] : nil
        let subscriptions =
          try reader.value("subscriptions").map { path in
            try PerAccountFile.read(path, account: account, what: "subscriptions", SubscriptionsFile.parse)
          } ?? planned
        let muted = try reader.value("muted-pubkeys").map { path in
          try PerAccountFile.read(path, account: account, what: "muted-pubkeys", MutedPubkeysFile.parse)
        }
        let social = { (flag: String) throws -> [String]? in
          try reader.value(flag).map { path in
            try PerAccountFile.read(path, account: account, what: flag) { json in
              try StringArrayFile.parse(json, field: flag)
            }
          }
        }
        var configuration = try ResolverConfiguration(
          relay: relay, secretKey: key, subscriptions: subscriptions, filters: filters,
          mutedPubkeys: muted ?? [], relayPubkey: reader.value("relay-pubkey"),
          community: reader.value("community"), budget: .milliseconds(budget),
          queryTimeout: .milliseconds(queryTimeout), avatarDirectory: cachePath + "-avatars",
          queryTransport: queryTransport, presentationWindow: .seconds(windowHours * 3600),
          canFilterNotifications: reader.has("can-filter"))
        configuration.social = try SocialSettings(
          zapperPubkeys: social("zapper-pubkeys") ?? [], onlyFrom: social("only-from"),
          mutedWords: social("muted-words") ?? [], mutedHashtags: social("muted-hashtags") ?? [],
          mutedThreads: social("muted-threads") ?? [])
        configurations.append(configuration)
      }
      _ = try NotificationResolver(configurations: configurations, cache: nil, clock: clock)
      options = ResolveOptions(
        configurations: configurations, cachePath: cachePath, clock: clock,
        killAfterClaim: reader.has("kill-after-claim"))
    } catch {
      CLIOutput.error("nostr-push resolve: \(error)")
      return ExitCode.failure
    }
    let resolution = await options.resolve()
    CLIOutput.line(
      ResolveLine.text(resolution.plan, elapsedMilliseconds: resolution.elapsed.wholeMilliseconds))
    CLIOutput.error(timing(resolution))
    if linger > 0 {
      let finished = await resolution.lingering.wait(until: .now + .milliseconds(linger))
      CLIOutput.error("resolve: late enrichment \(finished ? "finished" : "still running") after linger")
    }
    return ExitCode.success
  }

  /// The diagnostic timing line: total time and, once a message was chosen, the enrichment time.
  static func timing(_ resolution: Resolution) -> String {
    var text = "resolve: \(resolution.elapsed.wholeMilliseconds) ms"
    if let enrichment = resolution.enrichmentElapsed {
      text += ", enrichment \(enrichment.wholeMilliseconds) ms"
    }
    return text
  }
}

/// One `resolve` run's inputs: the resolver configuration, the cache file and the clock.
struct ResolveOptions: Sendable {
  /// The busy timeout the resolver opens the cache with (at most 250 ms, per the spec).
  static let cacheBusyTimeout: Duration = .milliseconds(250)

  /// One configuration per enrolled account, in the order of `--secret-key-file`.
  var configurations: [ResolverConfiguration]
  var cachePath: String
  var clock: UnixClock
  /// `--kill-after-claim`: SIGKILL right after the claim is written, as iOS would kill an extension.
  var killAfterClaim = false

  /// Opens the cache (without it when it cannot be opened) and resolves the wake.
  func resolve() async -> Resolution {
    let clock = self.clock
    var cache: EnrichmentCache? = nil
    do {
      cache = try EnrichmentCache(path: cachePath, busyTimeout: Self.cacheBusyTimeout, clock: { clock.now() })
    } catch {
      CLIOutput.error("nostr-push resolve: cache unavailable, enriching without it (\(error))")
    }
    // `run` checked the configurations (`NotificationResolver(configurations:)` with no cache).
    var resolver =
      (try? NotificationResolver(configurations: configurations, cache: cache, clock: clock))
      ?? NotificationResolver(configuration: configurations[0], cache: cache, clock: clock)
    if killAfterClaim { resolver.afterClaim = { _ = kill(getpid(), SIGKILL) } }
    return await resolver.resolve()
  }
}

/// Reads the account's secret key from a file: 64 hex or `nsec1…`, surrounding whitespace trimmed.
enum SecretKeyFile {
  static func read(_ path: String) throws -> SecretKey {
    let text = try BoundedFile.text(path, maxBytes: SecretKey.maxTextBytes, what: "secret key file")
    do {
      return try SecretKey(parsing: text)
    } catch {
      throw ResolverError(code: .invalidKey, field: "secret_key_file", message: error.message)
    }
  }
}

/// Reads `--filters`: a JSON array of NIP-01 filters.
enum FilterFile {
  /// The largest filters file read.
  static let maxBytes = 1024 * 1024
  /// The most filters accepted.
  static let maxFilters = 64

  static func read(_ path: String) throws -> [Filter] {
    let bytes = try BoundedFile.bytes(path, maxBytes: maxBytes, what: "filters file")
    let filters: [Filter]
    do {
      filters = try Filter.list(json: bytes)
    } catch {
      throw ResolverError(
        code: .invalidFilters, field: "filters" + (error.field ?? ""), message: error.message)
    }
    guard filters.count <= maxFilters else {
      throw ResolverError(code: .invalidFilters, field: "filters", message: "more than \(maxFilters) filters")
    }
    return filters
  }
}

/// Reads a file that holds one account's value (a JSON array) or several accounts' (an object
/// keyed by account pubkey hex): `--subscriptions`, `--muted-pubkeys`.
enum PerAccountFile {
  /// The largest file read.
  static let maxBytes = 1024 * 1024

  /// The array for `account`: the whole array, or its entry in the object (an empty array when
  /// the object has none).
  static func read<Value>(
    _ path: String, account: String, what: String, _ parse: (JSONValue) throws -> [Value]
  ) throws -> [Value] {
    let bytes = try BoundedFile.bytes(path, maxBytes: maxBytes, what: what + " file")
    let json: JSONValue
    do {
      json = try JSONReader(maxBytes: maxBytes).read(bytes)
    } catch {
      throw ResolverError(code: .outOfRange, field: what, message: "not JSON (\(error.code.rawValue))")
    }
    switch json {
    case .array: return try parse(json)
    case .object(let accounts):
      for key in accounts.keys where NostrID(lenient: key) == nil {
        throw ResolverError(code: .invalidKey, field: what, message: "a key is not an account pubkey")
      }
      let entry = accounts.keys.first { NostrID(lenient: $0)?.hex == account }.flatMap { accounts[$0] }
      return try entry.map(parse) ?? []
    default:
      throw ResolverError(code: .outOfRange, field: what, message: "must be an array or an object of arrays")
    }
  }
}

/// Parses `--subscriptions`: a JSON array of lease subscriptions (`Docs/EnrollingFromAnApp.md`).
enum SubscriptionsFile {
  static func parse(_ json: JSONValue) throws -> [LeaseSubscription] {
    do {
      return try LeaseSubscription.list(jsonValue: json)
    } catch {
      throw ResolverError(code: .invalidFilters, field: "subscriptions", message: error.reason)
    }
  }
}

/// Parses `--muted-pubkeys`: a JSON array of sender pubkeys (64 hex).
enum MutedPubkeysFile {
  static func parse(_ json: JSONValue) throws -> [String] {
    try StringArrayFile.parse(json, field: "muted-pubkeys")
  }
}

/// Parses a JSON array of strings (`--muted-pubkeys`, `--zapper-pubkeys`, `--only-from`,
/// `--muted-words`, `--muted-hashtags`, `--muted-threads`); what each string must be is checked by
/// the value it becomes (`ResolverConfiguration`, `SocialSettings`).
enum StringArrayFile {
  static func parse(_ json: JSONValue, field: String) throws -> [String] {
    guard case .array(let items) = json else {
      throw ResolverError(code: .outOfRange, field: field, message: "must be an array")
    }
    return try items.map { item in
      guard let text = item.stringValue else {
        throw ResolverError(code: .invalidKey, field: field, message: "values must be strings")
      }
      return text
    }
  }
}

/// Reads small files whole, refusing anything over a bound.
enum BoundedFile {
  static func bytes(_ path: String, maxBytes: Int, what: String) throws -> [UInt8] {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw ResolverError(code: .outOfRange, field: what, message: "cannot open \(path)")
    }
    defer { try? handle.close() }
    let data = (try? handle.read(upToCount: maxBytes + 1)) ?? Data()
    guard data.count <= maxBytes else {
      throw ResolverError(code: .outOfRange, field: what, message: "larger than \(maxBytes) bytes")
    }
    return [UInt8](data)
  }

  static func text(_ path: String, maxBytes: Int, what: String) throws -> String {
    let bytes = try bytes(path, maxBytes: maxBytes, what: what)
    guard let text = UTF8Text.decode(bytes) else {
      throw ResolverError(code: .outOfRange, field: what, message: "not UTF-8")
    }
    return text
  }
}
