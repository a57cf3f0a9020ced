import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import PushRelay
import PushRelayPostgres
import PushRelayServer

/// `nostr-push relay`: serves a data folder on loopback until SIGINT or SIGTERM.
enum RelayCommand: CLICommand {
  static let name = "relay"
  static let summary = "Serve a fixture data folder as a loopback relay (NIP-11, /query, /media)"
  static let usage = """
    usage: nostr-push relay --config FILE
           nostr-push relay --data DIR [--port 0] [--host 127.0.0.1] [--now UNIX]
                            [--push-key-file FILE [--gateway URL] [--state FILE | --database CONNINFO]
                             [--origin URL] [--gateway-timeout-ms 2000]]

    Serves DIR (nip11.json, events.jsonl, media/, faults.json) as in Docs/TestingWithRelayFixture.md and prints
    {"listening":"http://127.0.0.1:<port>","websocket":"ws://127.0.0.1:<port>"} once it accepts connections. Runs until SIGINT or
    SIGTERM. Only loopback hosts (127.0.0.0/8, ::1, localhost) are accepted. --now fixes the
    relay's clock for NIP-98 checks; --port 0 picks a free port.

    --push-key-file (64 hex or nsec1…) turns on push mode (Docs/VendoringPushRelay.md): nip11.json must hold a
    valid push descriptor, served with push.origin = the relay's ws:// origin and the current key's
    pubkey = the push key; kind 30350 leases are ingested, and events stored over WebSocket or
    POST /events are matched into the wake outbox of --state (default: a temporary SQLite file).
    --gateway sends those wakes to a gateway (http only on loopback) with --gateway-timeout-ms
    (100-10000) per request. Push mode binds IPv4 loopback (127.0.0.0/8) only.

    --database CONNINFO (a libpq connection string, postgresql://… or host=… dbname=…) keeps leases
    and wakes in PostgreSQL instead of --state, so several relay processes share them; --origin URL
    serves that tenant origin as push.origin (default: the relay's own ws:// origin), and the relay
    then accepts NIP-42 relay tags and NIP-98 u values on either.

    --config FILE runs the production push relay service instead (Docs/DeployingThePushRelay.md): a
    NIP-PL relay whose events come from the upstream relays and trusted feeds FILE names. It prints
    {"listening":"HOST:PORT","admin":"HOST:PORT","pubkey":"<hex>"} once both listeners accept
    connections and runs until SIGINT or SIGTERM; a configuration error names its field (exit 1).
    """

  static func run(_ arguments: [String]) async throws -> Int32 {
    if arguments.contains("--config") { return try await service(arguments) }
    let reader = try ArgumentReader(
      arguments,
      valueFlags: [
        "data", "port", "host", "now", "push-key-file", "gateway", "state", "database", "origin",
        "gateway-timeout-ms",
      ])
    _ = try reader.positionals(atMost: 0)
    let folder = try reader.required("data")
    guard let port = try reader.integer("port", default: 0), (0...65535).contains(port) else {
      throw UsageError("--port must be in 0...65535")
    }
    let now = try reader.integer("now")
    let host = reader.value("host") ?? "127.0.0.1"
    do throws(RelayFixtureError) {
      try RelayFixtureConfiguration.checkHost(host)
    } catch {
      throw UsageError("--host: \(error.message) (\(error.code))")
    }
    let pushOptions = try PushOptions(reader, host: host)
    // Nothing can read the request log of a relay run from the command line, so it keeps none.
    var configuration = RelayFixtureConfiguration(
      host: host, port: Int(port), now: now, requestLogCapacity: 0)
    let data: RelayFixtureData
    do {
      data = try RelayFixtureData.load(folder: URL(fileURLWithPath: folder, isDirectory: true))
      if let pushOptions {
        var mode = RelayFixturePushMode(
          pushKey: try SecretKeyFile.read(pushOptions.keyFile), gatewayURL: pushOptions.gateway,
          statePath: pushOptions.state, gatewayTimeout: pushOptions.timeout)
        mode.tenantOrigin = pushOptions.origin
        if let connection = pushOptions.database {
          mode.sharedState = Self.postgres(connection)
        }
        configuration.push = mode
      }
    } catch {
      CLIOutput.error("nostr-push relay: \(error)")
      return ExitCode.failure
    }
    for problem in data.problems {
      CLIOutput.error("nostr-push relay: events.jsonl line \(problem.line) skipped: \(problem.message)")
    }
    let server = RelayFixtureServer(data: data, configuration: configuration)
    return await TerminationSignals.serve(name, server, start: server.start) { url in
      let origin = url.absoluteString
      let webSocket = server.relayOrigin?.webSocketURL ?? ""
      return JSONWriter.string(
        .object(JSONObject(["listening": .string(origin), "websocket": .string(webSocket)])))
    }
  }

  /// `relay --config FILE`: the production push relay service until SIGINT or SIGTERM.
  static func service(_ arguments: [String]) async throws -> Int32 {
    let reader = try ArgumentReader(arguments, valueFlags: ["config"])
    _ = try reader.positionals(atMost: 0)
    let path = try reader.required("config")
    let signals = TerminationSignals.arm()
    let configuration: PushServiceConfiguration
    let service: PushService
    do {
      configuration = try PushServiceConfiguration(file: path)
      service = try await PushService.start(configuration)
    } catch {
      CLIOutput.error("nostr-push relay: \(error)")
      return ExitCode.failure
    }
    CLIOutput.line(
      service.listeningLine(host: configuration.listen.host, adminHost: configuration.adminListen.host))
    await signals.wait()
    await service.stop()
    return ExitCode.success
  }

  /// Leases and wakes in the PostgreSQL database at `connection`: its store, its outbox (on the
  /// database clock) and its listener, each on a connection of its own; and the NIP-98 replay
  /// store every process on the database shares.
  static func postgres(_ connection: String) -> RelayFixtureSharedState {
    RelayFixtureSharedState(
      name: "postgresql",
      open: { () throws(PushRelayError) in
        let database = try PostgresDatabase(connectionString: connection)
        return (
          try PostgresLeaseStore(database: database), try PostgresWakeOutbox(database: database),
          try PostgresWakeListener(database: database)
        )
      },
      openReplays: { () throws(PushRelayError) in
        try PostgresReplayStore(database: try PostgresDatabase(connectionString: connection))
      })
  }

  /// The push flags, checked as usage (exit 2): the others need `--push-key-file`, which needs
  /// an IPv4 loopback host; a malformed `--gateway` or timeout is a usage error too.
  struct PushOptions {
    var keyFile: String
    var gateway: String?
    var state: String?
    var database: String?
    var origin: String?
    var timeout: Duration

    /// nil without `--push-key-file`.
    init?(_ reader: ArgumentReader, host: String) throws {
      guard let keyFile = reader.value("push-key-file") else {
        for flag in ["gateway", "state", "database", "origin", "gateway-timeout-ms"]
        where reader.value(flag) != nil {
          throw UsageError("--\(flag) needs --push-key-file")
        }
        return nil
      }
      guard GatewayCommand.isIPv4Loopback(host) || host.lowercased() == "localhost" else {
        throw UsageError(
          "--host must be an IPv4 loopback address (127.0.0.0/8) with --push-key-file: FoundationNetworking on Linux cannot fetch a URL with an IPv6 literal"
        )
      }
      let milliseconds = try reader.integer(
        "gateway-timeout-ms", default: GatewayClient.defaultTimeout.wholeMilliseconds)
      guard let milliseconds, GatewayClient.timeoutRange.contains(.milliseconds(milliseconds)) else {
        throw UsageError("--gateway-timeout-ms must be in 100...10000")
      }
      self.keyFile = keyFile
      self.gateway = reader.value("gateway")
      self.state = reader.value("state")
      self.database = reader.value("database")
      self.origin = reader.value("origin")
      if state != nil && database != nil {
        throw UsageError("--state and --database are alternatives: give one")
      }
      if database?.isEmpty == true { throw UsageError("--database needs a connection string") }
      if let origin, !(origin.hasPrefix("ws://") || origin.hasPrefix("wss://")) {
        throw UsageError("--origin must be a ws:// or wss:// URL")
      }
      self.timeout = .milliseconds(milliseconds)
      if let gateway {
        do {
          _ = try GatewayClient(baseURL: gateway, timeout: timeout)
        } catch {
          throw UsageError("--gateway: \(error.message)")
        }
      }
    }
  }
}
