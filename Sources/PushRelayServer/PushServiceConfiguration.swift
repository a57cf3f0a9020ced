import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore

/// The push relay service's configuration file (`nostr-push relay --config FILE`), validated once
/// at start: every error is `invalid_configuration` and names the field.
///
/// ```json
/// {"public_url":"wss://push.example.org", "listen":"127.0.0.1:7447", "admin_listen":"127.0.0.1:9447",
///  "service_key_file":"service.key", "push_key_files":["current.key"],
///  "descriptor":{"app_profiles":[…], "push_kinds":[…], "class_support":{…}, "limitation":{…}},
///  "store":{"sqlite":"push.sqlite"}, "gateway":"https://gw.example.org",
///  "upstreams":[{"url":"wss://relay.example.org","auth":true}],
///  "feeds":{"websocket":true,"http":true,"nip98_pubkeys":["<hex>"]}, "query_timeout_ms":3000,
///  "limits":{"max_connections":1024,"max_connections_per_ip":32,"max_queries_per_minute_per_ip":600}}
/// ```
///
/// Decisions where the spec is silent: relative file paths are read relative to the
/// configuration file's folder; unknown top-level members are refused (a misspelt field must not
/// pass silently); `service_key_file` is required (it signs the service's NIP-42 answers to
/// upstreams and is the `pubkey` printed at start).
public struct PushServiceConfiguration: Sendable {
  /// The largest configuration file read.
  public static let maxFileBytes = 256 * 1024
  /// The most upstream relays one service follows.
  public static let maxUpstreams = 64
  /// The most push keys (the current one first, then previous ones).
  public static let maxPushKeys = 8
  /// The most keys allowed to post to the trusted feeds.
  public static let maxFeedKeys = 256
  /// The default time `/query` waits for the upstreams' answers.
  public static let defaultQueryTimeout: Duration = .seconds(3)
  /// The default retention of stored events: 14 days.
  public static let defaultRetentionSeconds: Int64 = 14 * 86_400
  /// The default byte quota of one author's stored events: 4 MiB.
  public static let defaultAuthorQuotaBytes = 4 * 1024 * 1024

  /// Where the service stores its events, leases and wakes.
  public enum Store: Sendable, Hashable {
    /// One SQLite file (leases and wakes in `<path>`, events in `<path>-events`).
    case sqlite(String)
    /// A PostgreSQL connection string (several processes on one database).
    case postgres(String)
  }

  /// One upstream relay the service subscribes to.
  public struct Upstream: Sendable, Hashable {
    /// The relay's `ws://` or `wss://` URL.
    public var url: String
    /// Whether the service answers the relay's NIP-42 challenges with its own key.
    public var auth: Bool
  }

  /// The trusted feeds on the admin listener.
  public struct Feeds: Sendable, Hashable {
    /// The `strfry router`-shaped WebSocket feed at the admin listener's `/`.
    public var webSocket: Bool
    /// `POST /events` (JSON lines) on the admin listener.
    public var http: Bool
    /// When not empty, a feed request must carry NIP-98 by one of these keys.
    public var nip98Pubkeys: Set<String>
  }

  /// An IPv4 address and port to listen on.
  public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The dotted-quad host.
    public var host: String
    /// The port (0: a free one).
    public var port: UInt16
    /// `host:port`.
    public var description: String { "\(host):\(port)" }
  }

  /// The service's public origin (`wss://push.example.org`): the push descriptor's `origin`.
  public var publicOrigin: RelayOrigin
  /// The client listener.
  public var listen: ListenAddress
  /// The admin listener (feeds, health, metrics).
  public var adminListen: ListenAddress
  /// The service's own key (NIP-42 to upstreams), read from its file.
  public var serviceKey: SecretKey
  /// The push keys, current first.
  public var pushKeys: [SecretKey]
  /// The push descriptor's policy, without `origin` and `keys`.
  public var descriptor: JSONObject
  /// The store.
  public var store: Store
  /// The gateway base URL, nil for none (wakes stay queued).
  public var gateway: String?
  /// The upstream relays.
  public var upstreams: [Upstream]
  /// The trusted feeds.
  public var feeds: Feeds
  /// How long `/query` waits for upstream answers.
  public var queryTimeout: Duration
  /// How long stored events are kept.
  public var retentionSeconds: Int64
  /// The most bytes of one author's events kept.
  public var authorQuotaBytes: Int
  /// The bounds per message, connection and client address on the client listener: the
  /// defaults, with the connection and per-address bounds the file's optional `limits` sets.
  public var limits: PushServiceLimits

  /// Reads and validates the configuration file at `path` (and the key files it names).
  public init(file path: String) throws(PushServiceError) {
    let url = URL(fileURLWithPath: path)
    let bytes = try Self.readFile(path, field: "config", maxBytes: Self.maxFileBytes, secret: false)
    try self.init(json: bytes, folder: url.deletingLastPathComponent().path)
  }

  /// Validates configuration `json`; relative paths are read under `folder`.
  public init(json: [UInt8], folder: String) throws(PushServiceError) {
    guard let object = (try? JSONReader(maxDepth: 16).read(json))?.objectValue else {
      throw Self.invalid(nil, "not a JSON object")
    }
    let known: Set<String> = [
      "public_url", "listen", "admin_listen", "service_key_file", "push_key_files", "descriptor", "store",
      "gateway", "upstreams", "feeds", "query_timeout_ms", "retention_days", "author_quota_bytes", "limits",
    ]
    if let unknown = object.keys.first(where: { !known.contains($0) }) {
      throw Self.invalid(unknown, "unknown field")
    }
    let publicURL = try Self.string(object, "public_url")
    do {
      publicOrigin = try RelayOrigin(publicURL)
    } catch {
      throw Self.invalid("public_url", "not a ws:// or wss:// origin: \(error.message)")
    }
    guard publicURL.hasPrefix("ws://") || publicURL.hasPrefix("wss://") else {
      throw Self.invalid("public_url", "must start with ws:// or wss://")
    }
    listen = try Self.listenAddress(object, "listen")
    adminListen = try Self.listenAddress(object, "admin_listen")
    func resolve(_ file: String) -> String { file.hasPrefix("/") ? file : folder + "/" + file }
    serviceKey = try Self.key(resolve(try Self.string(object, "service_key_file")), field: "service_key_file")
    guard let keyFiles = object["push_key_files"]?.arrayValue, !keyFiles.isEmpty,
      keyFiles.count <= Self.maxPushKeys
    else { throw Self.invalid("push_key_files", "must be an array of 1 to \(Self.maxPushKeys) file names") }
    var keys: [SecretKey] = []
    for (index, file) in keyFiles.enumerated() {
      guard let name = file.stringValue else {
        throw Self.invalid("push_key_files[\(index)]", "not a string")
      }
      keys.append(try Self.key(resolve(name), field: "push_key_files[\(index)]"))
    }
    pushKeys = keys
    guard let descriptor = object["descriptor"]?.objectValue else {
      throw Self.invalid("descriptor", "must be an object (the push descriptor's policy)")
    }
    for member in ["origin", "keys"] where descriptor[member] != nil {
      throw Self.invalid("descriptor.\(member)", "comes from public_url and push_key_files; remove it")
    }
    self.descriptor = descriptor
    guard let store = object["store"]?.objectValue, store.count == 1 else {
      throw Self.invalid("store", "must be {\"sqlite\":PATH} or {\"postgres\":CONNINFO}")
    }
    if let path = store["sqlite"] {
      guard let path = path.stringValue, !path.isEmpty else {
        throw Self.invalid("store.sqlite", "not a path")
      }
      self.store = .sqlite(resolve(path))
    } else if let conninfo = store["postgres"] {
      guard let conninfo = conninfo.stringValue, !conninfo.isEmpty else {
        throw Self.invalid("store.postgres", "not a connection string")
      }
      self.store = .postgres(conninfo)
    } else {
      throw Self.invalid("store", "must be {\"sqlite\":PATH} or {\"postgres\":CONNINFO}")
    }
    if let gateway = object["gateway"] {
      guard let text = gateway.stringValue, text.hasPrefix("https://") || text.hasPrefix("http://") else {
        throw Self.invalid("gateway", "must be an https:// URL (http only on loopback)")
      }
      self.gateway = text
    } else {
      gateway = nil
    }
    guard let list = object["upstreams"]?.arrayValue, list.count <= Self.maxUpstreams else {
      throw Self.invalid("upstreams", "must be an array of at most \(Self.maxUpstreams) relays")
    }
    var upstreams: [Upstream] = []
    for (index, entry) in list.enumerated() {
      let field = "upstreams[\(index)]"
      guard let entry = entry.objectValue, let url = entry["url"]?.stringValue else {
        throw Self.invalid(field + ".url", "must be a ws:// or wss:// URL")
      }
      guard url.hasPrefix("ws://") || url.hasPrefix("wss://"), (try? RelayOrigin(url)) != nil else {
        throw Self.invalid(field + ".url", "must be a ws:// or wss:// URL")
      }
      let auth = entry["auth"]?.boolValue
      if entry["auth"] != nil, auth == nil { throw Self.invalid(field + ".auth", "must be true or false") }
      guard !upstreams.contains(where: { $0.url == url }) else {
        throw Self.invalid(field + ".url", "listed twice")
      }
      upstreams.append(Upstream(url: url, auth: auth ?? false))
    }
    self.upstreams = upstreams
    let feeds = object["feeds"]?.objectValue ?? JSONObject()
    if object["feeds"] != nil, object["feeds"]?.objectValue == nil {
      throw Self.invalid("feeds", "must be an object")
    }
    func flag(_ name: String) throws(PushServiceError) -> Bool {
      guard let value = feeds[name] else { return false }
      guard let flag = value.boolValue else { throw Self.invalid("feeds.\(name)", "must be true or false") }
      return flag
    }
    var allowed = Set<String>()
    if let keys = feeds["nip98_pubkeys"] {
      guard let keys = keys.arrayValue, keys.count <= Self.maxFeedKeys else {
        throw Self.invalid("feeds.nip98_pubkeys", "must be an array of at most \(Self.maxFeedKeys) keys")
      }
      for (index, key) in keys.enumerated() {
        guard let hex = key.stringValue, hex.utf8.count == 64, Hex.decode(hex) != nil, hex == hex.lowercased()
        else { throw Self.invalid("feeds.nip98_pubkeys[\(index)]", "not 64 lowercase hex") }
        allowed.insert(hex)
      }
    }
    self.feeds = Feeds(webSocket: try flag("websocket"), http: try flag("http"), nip98Pubkeys: allowed)
    queryTimeout = .milliseconds(
      try Self.integer(object, "query_timeout_ms", in: 100...30_000, default: 3000))
    retentionSeconds = try Self.integer(object, "retention_days", in: 1...365, default: 14) * 86_400
    authorQuotaBytes = Int(
      try Self.integer(
        object, "author_quota_bytes", in: 64 * 1024...1024 * 1024 * 1024,
        default: Int64(Self.defaultAuthorQuotaBytes)))
    limits = try Self.limits(object["limits"])
  }

  /// The optional `limits` object: `max_connections`, `max_connections_per_ip` and
  /// `max_queries_per_minute_per_ip` of the client listener (``PushServiceLimits``). Behind a
  /// reverse proxy every client has the proxy's address, so an operator raises the per-address
  /// bounds to the totals there and limits per client in the proxy.
  private static func limits(_ member: JSONValue?) throws(PushServiceError) -> PushServiceLimits {
    var limits = PushServiceLimits()
    guard let member else { return limits }
    guard let object = member.objectValue else { throw invalid("limits", "must be an object") }
    let known: Set<String> = ["max_connections", "max_connections_per_ip", "max_queries_per_minute_per_ip"]
    if let unknown = object.keys.first(where: { !known.contains($0) }) {
      throw invalid("limits.\(unknown)", "unknown field")
    }
    func read(_ name: String, in range: ClosedRange<Int>, default value: Int) throws(PushServiceError) -> Int
    {
      guard let found = object[name] else { return value }
      guard let number = found.integerValue, range.contains(Int(clamping: number)) else {
        throw invalid("limits.\(name)", "must be an integer in \(range.lowerBound)...\(range.upperBound)")
      }
      return Int(number)
    }
    limits.maxConnections = try read("max_connections", in: 1...65_536, default: limits.maxConnections)
    limits.maxConnectionsPerIP = try read(
      "max_connections_per_ip", in: 1...limits.maxConnections,
      default: min(limits.maxConnectionsPerIP, limits.maxConnections))
    limits.maxQueriesPerMinutePerIP = try read(
      "max_queries_per_minute_per_ip", in: 1...1_000_000, default: limits.maxQueriesPerMinutePerIP)
    return limits
  }

  // MARK: Readers

  private static func invalid(_ field: String?, _ message: String) -> PushServiceError {
    PushServiceError(code: .invalidConfiguration, field: field, message: message)
  }

  private static func string(_ object: JSONObject, _ field: String) throws(PushServiceError) -> String {
    guard let value = object[field] else { throw invalid(field, "missing") }
    guard let text = value.stringValue, !text.isEmpty else {
      throw invalid(field, "must be a non-empty string")
    }
    return text
  }

  private static func integer(
    _ object: JSONObject, _ field: String, in range: ClosedRange<Int64>, default value: Int64
  ) throws(PushServiceError) -> Int64 {
    guard let member = object[field] else { return value }
    guard let number = member.integerValue, range.contains(number) else {
      throw invalid(field, "must be an integer in \(range.lowerBound)...\(range.upperBound)")
    }
    return number
  }

  private static func listenAddress(_ object: JSONObject, _ field: String) throws(PushServiceError)
    -> ListenAddress
  {
    let text = try string(object, field)
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, let port = UInt16(parts[1]) else {
      throw invalid(field, "must be IPV4:PORT (port 0 picks a free one)")
    }
    let host = String(parts[0])
    let octets = host.split(separator: ".", omittingEmptySubsequences: false)
    guard octets.count == 4, octets.allSatisfy({ UInt8($0) != nil }) else {
      throw invalid(field, "\(host) is not a dotted-quad IPv4 address")
    }
    return ListenAddress(host: host, port: port)
  }

  /// A secret key file: 64 hex or `nsec1…`, mode 0600 or stricter.
  private static func key(_ path: String, field: String) throws(PushServiceError) -> SecretKey {
    let bytes = try readFile(path, field: field, maxBytes: 1024, secret: true)
    do {
      return try SecretKey(parsing: String(decoding: bytes, as: UTF8.self))
    } catch {
      throw PushServiceError(code: .invalidConfiguration, field: field, message: "\(path): \(error.message)")
    }
  }

  /// The bytes of `path`, at most `maxBytes`; a secret must not be readable by group or others.
  static func readFile(_ path: String, field: String, maxBytes: Int, secret: Bool) throws(PushServiceError)
    -> [UInt8]
  {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let size = (attributes[.size] as? NSNumber)?.intValue
    else { throw PushServiceError(code: .unreadableFile, field: field, message: "\(path): cannot be read") }
    guard size <= maxBytes else {
      throw PushServiceError(code: .unreadableFile, field: field, message: "\(path): over \(maxBytes) bytes")
    }
    if secret, let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
      throw PushServiceError(
        code: .unreadableFile, field: field,
        message: "\(path): mode \(String(mode, radix: 8)) lets others read a secret; chmod 600")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw PushServiceError(code: .unreadableFile, field: field, message: "\(path): cannot be read")
    }
    return [UInt8](data.prefix(maxBytes))
  }
}
