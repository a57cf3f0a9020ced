import Foundation
import NostrEvent
import NostrPushCore
import NostrPushTestSupport
import PushRelay

/// One `PushRelayPostgresHelper` process on a test's database: a relay process of its own, driven
/// one line at a time (`store`, `accept`), optionally running a delivery worker.
final class PostgresRelayProcess: Sendable {
  let child: ChildProcess
  /// The server process id of the helper's listening connection.
  let listenerBackendID: Int32
  private let consumed = Locked(1)

  private init(child: ChildProcess, listenerBackendID: Int32) {
    self.child = child
    self.listenerBackendID = listenerBackendID
  }

  /// Starts a helper on `database`; with `gateway` (a base URL) its worker delivers there, each
  /// claim held `fenceMilliseconds`. Every channel's roster starts as `members`.
  static func start(
    _ database: PostgresTestDatabase, gateway: String? = nil, fenceMilliseconds: Int64 = 30_000,
    members: [String] = [Demo.account.publicKeyHex, Demo.alice.publicKeyHex]
  ) async throws -> PostgresRelayProcess {
    try await start(
      connectionString: database.connectionString, gateway: gateway, fenceMilliseconds: fenceMilliseconds,
      members: members)
  }

  /// Starts a helper on the database at `connectionString`.
  static func start(
    connectionString: String, gateway: String? = nil, fenceMilliseconds: Int64 = 30_000,
    members: [String] = [Demo.account.publicKeyHex, Demo.alice.publicKeyHex]
  ) async throws -> PostgresRelayProcess {
    guard let helper = PackageRoot.builtExecutable("PushRelayPostgresHelper") else {
      throw PushRelayError(
        code: .invalidConfiguration, message: "PushRelayPostgresHelper is not built; run `swift build` first")
    }
    let child = try await ChildProcess.start(
      helper,
      [
        connectionString, PackageRoot.url.appendingPathComponent("Fixtures/demo/nip11.json").path,
        "8d959b54ec6a9ebef76c4edb67c6c8e3216db81cb5255ffe1f2fac4e67ba4098", Demo.keyID, gateway ?? "-",
        String(fenceMilliseconds), members.joined(separator: ","),
      ], input: .pipe)
    let ready = String(decoding: await child.firstLine(), as: UTF8.self)
    guard ready.hasPrefix("ready "),
      let backend = Int32(ready.dropFirst(6).trimmingCharacters(in: .whitespacesAndNewlines))
    else {
      child.send(SIGKILL)
      let exit = await child.exited()
      throw PushRelayError(code: .storage, message: "the helper did not start: \(ready) \(exit.stderrText)")
    }
    return PostgresRelayProcess(child: child, listenerBackendID: backend)
  }

  /// Stores `event` in this process (`PushRelay.didStore`), the roster extended by `members`.
  func store(_ event: Event, members: [String] = []) async throws -> String {
    try await send([
      "store\t\(members.joined(separator: ","))\t\(String(decoding: event.jsonBytes(), as: UTF8.self))"
    ])[0]
  }

  /// Ingests each lease event in this process, in order, sent at once; the answers in order.
  func accept(_ events: [Event]) async throws -> [String] {
    try await send(events.map { "accept\t\(String(decoding: $0.jsonBytes(), as: UTF8.self))" })
  }

  /// Writes `lines` and returns the next as many answer lines (waiting up to 30 s).
  func send(_ lines: [String]) async throws -> [String] {
    await child.write(Array(lines.map { $0 + "\n" }.joined().utf8))
    let first = consumed.current
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
      let output = String(decoding: await child.outputSoFar(), as: UTF8.self).split(
        separator: "\n", omittingEmptySubsequences: false)
      // Complete lines only: the last element is what follows the last newline.
      if output.count - 1 >= first + lines.count {
        consumed.withLock { $0 = first + lines.count }
        return output[first..<(first + lines.count)].map(String.init)
      }
      try await Task.sleep(for: .milliseconds(2))
    }
    throw PushRelayError(code: .transport, message: "the helper answered \(lines.count) lines late")
  }

  /// Asks the helper to stop and awaits its end.
  func quit() async -> ChildProcess.Exit {
    await child.write(Array("quit\n".utf8))
    child.closeInput()
    return await child.exited()
  }

  /// Kills the helper (SIGKILL) and awaits its end.
  func kill() async -> ChildProcess.Exit {
    child.send(SIGKILL)
    return await child.exited()
  }
}
