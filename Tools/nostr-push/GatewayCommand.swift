import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting

/// `nostr-push gateway`: with `--config`, the production gateway (``ProductionGateway``); without,
/// the loopback gateway fixture of `Docs/VendoringPushRelay.md`; each until SIGINT or SIGTERM.
enum GatewayCommand: CLICommand {
  static let name = "gateway"
  static let summary = "Serve the production push gateway (--config FILE), or the loopback fixture"
  static let usage = """
    usage: nostr-push gateway --config FILE
           nostr-push gateway [--port 0] [--host 127.0.0.1] [--key-file FILE] [--topic T]
                              [--script FILE] [--quota 10] [--now UNIX]

    With --config, serves the production gateway of that JSON file (Docs/DeployingTheGateway.md):
    registration, sealed grants and deliveries to APNs on its listen address, /_liveness,
    /_readiness and /metrics on its admin_listen address; prints
    {"listening":"http://<listen>","admin":"http://<admin_listen>"} once both accept connections.
    A refused file (the field named) exits 1; a fixture flag with --config exits 2.

    Without --config:
    Serves the gateway fixture on IPv4 loopback (127.0.0.0/8 only) and prints
    {"listening":"http://127.0.0.1:<port>","pubkey":"<hex>"} once it accepts connections. Grants
    come from POST /v1/test/grants; deliveries go to POST /v1/deliveries/apns (NIP-98); the APNs
    requests it would send are listed by GET /v1/test/deliveries. --key-file: 64 hex or nsec1…
    (a fresh key without it). --script: a JSON array of scripted answers. --quota: answered
    attempts per device token per 10 s, past it 429 rate_limited (0 = off). --now fixes the
    gateway's clock.
    """

  /// The largest script file read (1 MiB).
  static let maxScriptBytes = 1024 * 1024

  static func run(_ arguments: [String]) async throws -> Int32 {
    let reader = try ArgumentReader(
      arguments, valueFlags: ["config", "port", "host", "key-file", "topic", "script", "quota", "now"])
    _ = try reader.positionals(atMost: 0)
    if let config = reader.value("config") {
      let fixtureFlags = ["port", "host", "key-file", "topic", "script", "quota", "now"].filter {
        reader.value($0) != nil
      }
      guard fixtureFlags.isEmpty else {
        throw UsageError(
          "--config serves the production gateway and takes no fixture flag: "
            + fixtureFlags.map { "--" + $0 }.joined(separator: ", "))
      }
      return await ProductionGateway.serve(configPath: config)
    }
    guard let port = try reader.integer("port", default: 0), (0...65535).contains(port) else {
      throw UsageError("--port must be in 0...65535")
    }
    guard let quota = try reader.integer("quota", default: Int64(GatewayFixtureConfiguration.defaultQuota)),
      quota >= 0, quota <= Int64(Int32.max)
    else { throw UsageError("--quota must be a non-negative integer") }
    let host = reader.value("host") ?? "127.0.0.1"
    guard isIPv4Loopback(host) else {
      throw UsageError(
        "--host must be an IPv4 loopback address (127.0.0.0/8): FoundationNetworking on Linux cannot fetch a URL with an IPv6 literal"
      )
    }
    let configuration = GatewayFixtureConfiguration(
      host: host, port: Int(port), topic: reader.value("topic") ?? GatewayFixtureConfiguration.defaultTopic,
      quota: Int(quota), now: try reader.integer("now"))
    var key: SecretKey?
    var script: [GatewayScriptEntry] = []
    let gateway: GatewayFixture
    do {
      if let path = reader.value("key-file") { key = try SecretKeyFile.read(path) }
      if let path = reader.value("script") {
        script = try GatewayScriptEntry.parse(
          json: try BoundedFile.bytes(path, maxBytes: maxScriptBytes, what: "script"))
      }
      gateway = try GatewayFixture(key: key, configuration: configuration)
    } catch {
      CLIOutput.error("nostr-push gateway: \(error)")
      return ExitCode.failure
    }
    gateway.script(script)
    return await TerminationSignals.serve(name, gateway, start: gateway.start) { url in
      JSONWriter.string(
        .object(JSONObject(["listening": .string(url.absoluteString), "pubkey": .string(gateway.pubkey)])))
    }
  }

  /// Whether `host` is a dotted-quad IPv4 literal in 127.0.0.0/8.
  static func isIPv4Loopback(_ host: String) -> Bool {
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0] == "127" else { return false }
    return parts.allSatisfy { part in
      !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
        && Int(part).map { $0 <= 255 } == true
    }
  }
}
