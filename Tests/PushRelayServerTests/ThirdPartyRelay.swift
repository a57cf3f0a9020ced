import Foundation
import NostrPushCore
import NostrPushTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A relay no one here wrote, started as a process for one test and stopped after it: PyPI
/// `nostr-relay` (SQLite, its events survive a restart) or rust-nostr's local relay (PyPI
/// `nostr-sdk`, in memory), both from the venv `Scripts/setup` installs.
final class ThirdPartyRelay: @unchecked Sendable {
  /// Which relay.
  enum Kind: String, CaseIterable, Sendable, CustomStringConvertible {
    case nostrRelay = "nostr-relay"
    case rustNostr = "rust-nostr"
    /// rust-nostr's local relay requiring NIP-42 for reads and writes.
    case rustNostrAuth = "rust-nostr NIP-42"
    var description: String { rawValue }
  }

  /// The venv `Scripts/setup` installs the relays into.
  static var venv: String {
    ProcessInfo.processInfo.environment["NOSTRPUSH_RELAYS_VENV"]
      ?? (NSHomeDirectory() + "/.cache/nostrpush/relays-venv")
  }

  /// Whether the venv holds both relays; when not, the tests that need them are skipped and say how
  /// to install them (`bash Scripts/setup`).
  static var isInstalled: Bool {
    FileManager.default.isExecutableFile(atPath: venv + "/bin/nostr-relay")
      && FileManager.default.fileExists(atPath: venv + "/bin/python")
  }

  let kind: Kind
  let port: UInt16
  let folder: TemporaryFolder
  private var process: ChildProcess?

  var url: String { "ws://127.0.0.1:\(port)" }

  init(_ kind: Kind) async throws {
    self.kind = kind
    folder = try TemporaryFolder()
    port = try Self.freePort()
    try await start()
  }

  /// Starts (or starts again, on the same port and files) and waits until it accepts connections.
  func start() async throws {
    switch kind {
    case .nostrRelay:
      let config = try folder.write(
        "relay.yaml",
        """
        DEBUG: false
        relay_name: test relay
        storage:
          sqlalchemy.url: sqlite+aiosqlite:///\(folder.path)/nostr.sqlite3
          num_concurrent_reqs: 10
          num_concurrent_adds: 2
          validators:
            - nostr_relay.validators.is_not_too_large
            - nostr_relay.validators.is_signed
        verification:
          nip05_verification: disabled
        gunicorn:
          bind: 127.0.0.1:\(port)
          workers: 1
          loglevel: warning
          reload: false
        authentication:
          enabled: false
        message_timeout: 1800
        subscription_limit: 32
        """)
      process = try await ChildProcess.start(
        URL(fileURLWithPath: Self.venv + "/bin/nostr-relay"), ["-c", config, "serve", "--use-uvicorn"])
      let ready = await Polling.eventuallyAwaiting(within: .seconds(30), every: .milliseconds(50)) {
        (try? await LoopbackFetch.send(
          "http://127.0.0.1:\(port)/", headers: ["Accept": "application/nostr+json"]
        ).status) == 200
      }
      guard ready else { throw StartFailure(message: "nostr-relay did not answer NIP-11 within 30 s") }
    case .rustNostr, .rustNostrAuth:
      let script = PackageRoot.url.appendingPathComponent("Scripts/rust-nostr-local-relay.py").path
      let child = try await ChildProcess.start(
        URL(fileURLWithPath: Self.venv + "/bin/python"),
        [script, String(port)] + (kind == .rustNostrAuth ? ["--auth"] : []))
      process = child
      let line = String(decoding: await child.firstLine(), as: UTF8.self)
      guard line.hasPrefix("ws://") else {
        throw StartFailure(message: "rust-nostr relay printed \(line) instead of its URL")
      }
    }
  }

  /// Kills the process (SIGKILL: the test process's children inherit its blocked SIGTERM) and
  /// waits for it; nostr-relay (one uvicorn process, SQLite) keeps what it acknowledged.
  func terminate() async {
    guard let process else { return }
    process.send(SIGKILL)
    _ = await process.exited()
    self.process = nil
  }

  func stop() async {
    await terminate()
    folder.remove()
  }

  struct StartFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
  }

  /// A TCP port no one listens on now (bound to port 0 and released).
  static func freePort() throws -> UInt16 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw StartFailure(message: "socket failed") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    guard bound == 0 else { throw StartFailure(message: "bind failed") }
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else { throw StartFailure(message: "getsockname failed") }
    return UInt16(bigEndian: address.sin_port)
  }
}

extension ServiceWorld {
  /// Runs `body` with a service following a fresh `kind` relay (answering its NIP-42 when `auth`);
  /// both are stopped after, whether `body` returns or throws.
  static func following(
    _ kind: ThirdPartyRelay.Kind, auth: Bool = false,
    _ body: (ServiceWorld, ThirdPartyRelay) async throws -> Void
  ) async throws {
    let relay = try await ThirdPartyRelay(kind)
    let world: ServiceWorld
    do {
      world = try await ServiceWorld(upstream: relay.url, auth: auth)
    } catch {
      await relay.stop()
      throw error
    }
    do {
      try await body(world, relay)
    } catch {
      await world.stop()
      await relay.stop()
      throw error
    }
    await world.stop()
    await relay.stop()
  }
}
