import Dispatch
import Foundation
import NostrJSON
import RelayFixture

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `nostr-push relay`: serves a data folder on loopback until SIGINT or SIGTERM.
enum RelayCommand: CLICommand {
  static let name = "relay"
  static let summary = "Serve a fixture data folder as a loopback relay (NIP-11, /query, /media)"
  static let usage = """
    usage: nostr-push relay --data DIR [--port 0] [--host 127.0.0.1] [--now UNIX]

    Serves DIR (nip11.json, events.jsonl, media/, faults.json) as in relay-fixture.md and prints
    {"listening":"http://127.0.0.1:<port>","websocket":"ws://127.0.0.1:<port>"} once it accepts connections. Runs until SIGINT or
    SIGTERM. Only loopback hosts (127.0.0.0/8, ::1, localhost) are accepted. --now fixes the
    relay's clock for NIP-98 checks; --port 0 picks a free port.
    """

  static func run(_ arguments: [String]) async throws -> Int32 {
    let reader = try ArgumentReader(arguments, valueFlags: ["data", "port", "host", "now"])
    _ = try reader.positionals(atMost: 0)
    let folder = try reader.required("data")
    guard let port = try reader.integer("port", default: 0), (0...65535).contains(port) else {
      throw UsageError("--port must be in 0...65535")
    }
    let now = try reader.integer("now")
    // Nothing can read the request log of a relay run from the command line, so it keeps none.
    let configuration = RelayFixtureConfiguration(
      host: reader.value("host") ?? "127.0.0.1", port: Int(port), now: now, requestLogCapacity: 0)
    let data: RelayFixtureData
    do {
      data = try RelayFixtureData.load(folder: URL(fileURLWithPath: folder, isDirectory: true))
    } catch {
      CLIOutput.error("nostr-push relay: \(error)")
      return ExitCode.failure
    }
    for problem in data.problems {
      CLIOutput.error("nostr-push relay: events.jsonl line \(problem.line) skipped: \(problem.message)")
    }
    let server = RelayFixtureServer(data: data, configuration: configuration)
    let signals = TerminationSignals.arm()
    let url: URL
    do {
      url = try await server.start()
    } catch {
      CLIOutput.error("nostr-push relay: \(error)")
      return ExitCode.failure
    }
    let origin = url.absoluteString
    let webSocket = "ws" + origin.dropFirst("http".count)
    CLIOutput.line(
      JSONWriter.string(.object(JSONObject(["listening": .string(origin), "websocket": .string(webSocket)]))))
    await signals.wait()
    await server.stop()
    return ExitCode.success
  }
}
