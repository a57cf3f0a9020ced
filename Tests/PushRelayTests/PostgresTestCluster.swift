import Foundation
import NostrPushTestSupport
import PushRelay

/// A PostgreSQL cluster of one test's own (initdb from `NOSTRPUSH_POSTGRES_BIN` in a temporary
/// folder, Unix socket only, as the `postgres` user when the tests run as root), for a test that
/// restarts the server and must never disturb the shared one.
final class PostgresTestCluster: Sendable {
  /// The folder holding the data directory, the socket and the log.
  let folder: URL
  /// A connection string to its `postgres` database.
  let connectionString: String
  private let binaries: String
  private let runAs: [String]

  /// Creates and starts the cluster.
  init() async throws {
    guard let binaries = ProcessInfo.processInfo.environment["NOSTRPUSH_POSTGRES_BIN"], !binaries.isEmpty
    else {
      throw PushRelayError(code: .invalidConfiguration, message: "NOSTRPUSH_POSTGRES_BIN is not set")
    }
    self.binaries = binaries
    folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("np-cluster-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let user: String
    if getuid() == 0 {
      user = "postgres"
      runAs = ["/usr/sbin/runuser", "-u", "postgres", "--"]
      try FileManager.default.setAttributes(
        [.ownerAccountName: user, .posixPermissions: 0o755], ofItemAtPath: folder.path)
    } else {
      user = NSUserName()
      runAs = []
    }
    connectionString = "host=\(folder.path) dbname=postgres user=\(user)"
    try await run(
      "initdb", ["-D", data, "-U", user, "--auth=trust", "--no-locale", "--encoding=UTF8"])
    let settings = """

      listen_addresses = ''
      unix_socket_directories = '\(folder.path)'
      fsync = off
      max_connections = 40

      """
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: data + "/postgresql.conf"))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(settings.utf8))
    try handle.close()
    try await run("pg_ctl", ["-D", data, "-l", folder.path + "/server.log", "-w", "-t", "60", "start"])
  }

  private var data: String { folder.path + "/data" }

  /// `pg_ctl restart -m fast`: every session ends, the server comes back on the same socket.
  func restart() async throws {
    try await run(
      "pg_ctl", ["-D", data, "-l", folder.path + "/server.log", "-m", "fast", "-w", "-t", "60", "restart"])
  }

  /// Stops the server and removes the folder.
  func stop() async {
    try? await run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
    try? FileManager.default.removeItem(at: folder)
  }

  /// Runs a server tool to its end. `pg_ctl start` leaves a server running that inherits every
  /// open descriptor, among them the one Foundation watches for the child's end: a shell closes
  /// all but 0–2 before it runs the tool, the output goes to `/dev/null` (the server logs to
  /// `server.log`), and only the tool's own exit is awaited.
  private func run(_ tool: String, _ arguments: [String]) async throws {
    let closeAndRun =
      #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; exec "$@""#
    let command = runAs + ["/bin/bash", "-c", closeAndRun, "bash", binaries + "/" + tool] + arguments
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { ended in continuation.resume(returning: ended.terminationStatus) }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
      }
    }
    guard status == 0 else {
      throw PushRelayError(
        code: .storage, message: "\(tool) exited with \(status); see \(folder.path)/server.log")
    }
  }
}
