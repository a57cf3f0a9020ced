import EnrichmentCache
import Foundation
import NostrEvent
import NostrJSON
import NostrPushTesting
import NotificationResolver
import PushDescriptor

/// `nostr-push demo`: the main job on embedded defaults — the whole pipeline of `Docs/CommandLine.md` on
/// loopback, the production gateway (`DemoGateway`, APNs recorded) and the fixture relay in-process
/// (`DemoPipeline` plays the rest).
enum DemoCommand: CLICommand {
  static let name = "demo"
  static let summary = "run the whole push pipeline on loopback: enroll, match, wake, resolve, revoke"
  static let usage = """
    usage: nostr-push demo [--protocol nip-pl|buzz-push-v1] [--social]

    Starts the production push gateway (SQLite store, sealing key and an ES256 APNs token key
    made for the run, a recording transport in place of APNs) and the fixture relay in push mode
    on 127.0.0.1 with Fixtures/demo/ (--protocol buzz-push-v1: Fixtures/demo-v1/, the same world
    served as buzz-push-v1), then plays the app, a second user and the extension through the
    libraries: discover the push descriptor, register the device token and delegate it to the
    relay at the gateway (NIP-98 by the account) for a sealed grant, enroll a NIP-44 lease over
    WebSocket with NIP-42, publish messages (each matched, sent by the gateway to APNs as a
    content-free request whose path, apns-* headers, body and verified JWT the wake step shows,
    and resolved into a notification), revoke, and show that a last message wakes nothing. One
    JSON line per step on standard output, a sentence per step with its milliseconds on standard
    error. Exit 0 only if every step happened.

    --social runs a social world instead (the descriptor lists the social kinds; the lease is the
    planner's social plan): a mention, a reply, a reaction, a repost, a validated and an
    unvalidated zap, each published, matched, woken and resolved; exit 0 only if each shows as the
    social table says (a title in its words, an amount only for the validated zap).
    """

  /// The demo data's port: its profile's avatar URL points there.
  static let demoPort = 48111

  static func run(_ arguments: [String]) async throws -> Int32 {
    let reader = try ArgumentReader(arguments, valueFlags: ["protocol"], booleanFlags: ["social"])
    let social = reader.has("social")
    _ = try reader.positionals(atMost: 0)
    let name = reader.value("protocol") ?? PushProtocol.nipPL.rawValue
    guard let generation = PushProtocol(rawValue: name) else {
      throw UsageError("--protocol must be nip-pl or buzz-push-v1, got '\(name)'")
    }
    let relative = generation == .nipPL ? "Fixtures/demo" : "Fixtures/demo-v1"
    guard let folder = DemoData.locate(relative) else {
      CLIOutput.error("nostr-push demo: cannot find \(relative) (run from the package or its build folder)")
      return ExitCode.failure
    }
    let workspace = NSTemporaryDirectory() + "nostr-push-demo-" + UUID().uuidString
    let gateway: DemoGateway
    let relay: RelayFixtureServer
    let account: SecretKey
    let sender: SecretKey
    let channel: String
    do {
      // Owner-only: it holds the relay's state (decrypted subscriptions and grants) and the cache.
      try FileManager.default.createDirectory(
        atPath: workspace, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      account = try SecretKeyFile.read(folder.appendingPathComponent("account.key").path)
      (sender, channel) = try DemoData.senderAndChannel(in: folder)
      gateway = try await DemoGateway.start(directory: workspace) { CLIOutput.error("demo: gateway: \($0)") }
      let push = RelayFixturePushMode(
        pushKey: SecretKey.generate(), gatewayURL: gateway.baseURL,
        statePath: workspace + "/relay-state.sqlite")
      var data = try RelayFixtureData.load(folder: folder)
      if social { data.nip11 = try SocialDemo.socialDocument(data.nip11) }
      relay = try await startRelay(data, push: push)
    } catch {
      CLIOutput.line(
        bytes: JSONWriter.bytes(
          .object(
            JSONObject(["step": .string("failed"), "at": .string("start"), "message": .string("\(error)")]))))
      return ExitCode.failure
    }
    CLIOutput.error(
      "demo: relay \(relay.origin ?? "?") (push mode), gateway \(gateway.baseURL) (APNs recorded), "
        + "state, cache and avatars in \(workspace)")
    let pipeline = DemoPipeline(
      relay: relay, gateway: gateway, account: account, sender: sender, channel: channel, workspace: workspace
    )
    let succeeded = social ? await SocialDemo(pipeline: pipeline).run() : await pipeline.run()
    await relay.stop()
    await gateway.stop()
    return succeeded ? ExitCode.success : ExitCode.failure
  }

  /// The relay on the demo port (its avatar URL's), else on a free one.
  private static func startRelay(_ data: RelayFixtureData, push: RelayFixturePushMode) async throws
    -> RelayFixtureServer
  {
    let preferred = RelayFixtureServer(
      data: data, configuration: RelayFixtureConfiguration(port: demoPort, push: push))
    do {
      _ = try await preferred.start()
      return preferred
    } catch {
      guard error.code == .addressInUse else { throw error }
    }
    CLIOutput.error("demo: port \(demoPort) is taken; using a free port (the avatar URL will not resolve)")
    let fallback = RelayFixtureServer(
      data: data, configuration: RelayFixtureConfiguration(port: 0, push: push))
    _ = try await fallback.start()
    return fallback
  }
}

/// Finds the demo's data folder: `Fixtures/demo` under the current directory, else next to the
/// `Package.swift` found by walking up from the executable.
enum DemoData {
  /// The second user (`alice` of `keys.json`, a test key) and the demo channel (`manifest.json`).
  static func senderAndChannel(in folder: URL) throws -> (SecretKey, String) {
    let keys = try BoundedFile.bytes(
      folder.appendingPathComponent("keys.json").path, maxBytes: 65536, what: "keys")
    let manifest = try BoundedFile.bytes(
      folder.appendingPathComponent("manifest.json").path, maxBytes: 65536, what: "manifest")
    guard
      let hex = try JSONReader().read(keys).objectValue?["alice"]?.objectValue?["secret_key"]?.stringValue,
      let channel = try JSONReader().read(manifest).objectValue?["channel_id"]?.stringValue
    else { throw StateFileError("Fixtures/demo lacks keys.json's alice or manifest.json's channel_id") }
    return (try SecretKey(hex: hex), channel)
  }

  /// How many parent folders of the executable are searched for `Package.swift`.
  static let maxLevels = 8

  static func locate(_ relative: String = "Fixtures/demo") -> URL? {
    let manager = FileManager.default
    let current = URL(fileURLWithPath: manager.currentDirectoryPath).appendingPathComponent(relative)
    if manager.fileExists(atPath: current.appendingPathComponent("events.jsonl").path) { return current }
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var folder = executable.deletingLastPathComponent()
    for _ in 0..<maxLevels {
      if manager.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
        let candidate = folder.appendingPathComponent(relative)
        return manager.fileExists(atPath: candidate.path) ? candidate : nil
      }
      folder = folder.deletingLastPathComponent()
    }
    return nil
  }
}
