import EnrichmentCache
import Foundation
import NostrEvent
import NotificationResolver
import RelayFixture

/// `nostr-push demo`: the main job on embedded defaults — a fixture relay in-process, a fresh
/// cache, and two wakes (cold, then warm), each printed as a `resolve` line (see `cli.md`).
enum DemoCommand: CLICommand {
  static let name = "demo"
  static let summary = "resolve two wakes against an in-process fixture relay (no network)"
  static let usage = """
    usage: nostr-push demo

    Starts the fixture relay on loopback with Fixtures/demo/, creates a cache in a temporary
    folder and resolves two wakes: the first with an empty cache, the second with the cache warm
    (presenting the next message, the first being delivered). Prints each notification as a
    `resolve` line on standard output and a summary with timings on standard error.
    """

  /// The demo data's clock: T+600 of `Fixtures/demo` (its README), so every message is eligible
  /// and the relay's NIP-98 check agrees with the client.
  static let demoNow: Int64 = 1_767_226_200
  /// The port the demo profile's avatar URL names; port 0 is the fallback when it is taken.
  static let demoPort = 48111
  /// How long the cold wake's late enrichment may take to reach the cache before the warm wake.
  static let settleTime: Duration = .seconds(3)

  static func run(_ arguments: [String]) async throws -> Int32 {
    _ = try ArgumentReader(arguments, valueFlags: []).positionals(atMost: 0)
    guard let folder = DemoData.locate() else {
      CLIOutput.error("nostr-push demo: cannot find Fixtures/demo (run from the package or its build folder)")
      return ExitCode.failure
    }
    let data: RelayFixtureData
    do {
      data = try RelayFixtureData.load(folder: folder)
    } catch {
      CLIOutput.error("nostr-push demo: \(error)")
      return ExitCode.failure
    }
    let server: RelayFixtureServer
    do {
      server = try await startRelay(data)
    } catch {
      CLIOutput.error("nostr-push demo: cannot start the fixture relay: \(error)")
      return ExitCode.failure
    }
    let status = await runWakes(server: server, folder: folder)
    await server.stop()
    return status
  }

  private static func startRelay(_ data: RelayFixtureData) async throws -> RelayFixtureServer {
    let preferred = RelayFixtureServer(
      data: data, configuration: RelayFixtureConfiguration(port: demoPort, now: demoNow))
    let failure: RelayFixtureError
    do {
      _ = try await preferred.start()
      return preferred
    } catch {
      failure = error
    }
    guard failure.code == .addressInUse else { throw failure }
    CLIOutput.error("demo: port \(demoPort) is taken; using a free port (the avatar URL will not resolve)")
    let fallback = RelayFixtureServer(
      data: data, configuration: RelayFixtureConfiguration(port: 0, now: demoNow))
    _ = try await fallback.start()
    return fallback
  }

  private static func runWakes(server: RelayFixtureServer, folder: URL) async -> Int32 {
    let workspace = NSTemporaryDirectory() + "nostr-push-demo-" + UUID().uuidString
    let options: ResolveOptions
    do {
      try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
      let key = try SecretKeyFile.read(folder.appendingPathComponent("account.key").path)
      let configuration = try ResolverConfiguration(
        relay: RelayOrigin(server.origin ?? ""), secretKey: key,
        avatarDirectory: workspace + "/avatars")
      options = ResolveOptions(
        configuration: configuration, cachePath: workspace + "/cache.sqlite", clock: .fixed(demoNow))
    } catch {
      CLIOutput.error("nostr-push demo: \(error)")
      return ExitCode.failure
    }
    CLIOutput.error("demo: fixture relay at \(server.origin ?? "?"), cache in \(workspace)")
    for (index, label) in ["cold cache", "warm cache"].enumerated() {
      server.resetRequestLog()
      let resolution = await options.resolve()
      let milliseconds = resolution.elapsed.wholeMilliseconds
      CLIOutput.line(ResolveLine.text(resolution.outcome, elapsedMilliseconds: milliseconds))
      let settled = await resolution.lingering.wait(until: .now + settleTime)
      CLIOutput.error(
        summary(index + 1, label, resolution, requests: server.requests().count, settled: settled))
    }
    return ExitCode.success
  }

  private static func summary(
    _ number: Int, _ label: String, _ resolution: Resolution, requests: Int, settled: Bool
  ) -> String {
    let total = resolution.elapsed.wholeMilliseconds
    switch resolution.outcome {
    case .fallback(let reason):
      return "demo: wake \(number) (\(label)): fallback \(reason.rawValue) in \(total) ms"
    case .resolved(let notification):
      let enrichment = resolution.enrichmentElapsed.map { "\($0.wholeMilliseconds) ms" } ?? "-"
      let thread = notification.target.threadID.map { "thread \($0.prefix(8))…" } ?? "opens in channel"
      return """
        demo: wake \(number) (\(label)): "\(notification.title)" \(notification.subtitle ?? "") — \(thread); \
        \(total) ms total, \(enrichment) enriching (\(notification.enrichment.rawValue)), \(requests) relay \
        requests, avatar \(notification.avatarFile == nil ? "none" : "attached")\(settled ? "" : ", still enriching")
        """
    }
  }
}

/// Finds the demo's data folder: `Fixtures/demo` under the current directory, else next to the
/// `Package.swift` found by walking up from the executable.
enum DemoData {
  /// How many parent folders of the executable are searched for `Package.swift`.
  static let maxLevels = 8

  static func locate() -> URL? {
    let manager = FileManager.default
    let relative = "Fixtures/demo"
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
