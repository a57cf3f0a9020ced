import Foundation
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrWebSocket
import NotificationResolver

/// What `publish` and `query` share: the `--timeout-ms` and `--now` flags, the error line, and
/// the HTTP leg (`POST /events`, `POST /query`) with NIP-98; and the WebSocket session every
/// command that talks to a relay (`publish`, `query`, `enroll`, `revoke`, `demo`) opens and closes.
enum RelayExchange {
  /// The longest `--timeout-ms` (one minute).
  static let maxTimeoutMilliseconds: Int64 = 60_000
  /// The largest HTTP answer read (16 MiB, a query's `maxBytes`).
  static let maxResponseBytes = 16 * 1024 * 1024
  /// The largest event file read.
  static let maxEventFileBytes = 4 * 1024 * 1024

  /// The flags `publish` and `query` share, checked in their usage order: `--relay`, the key
  /// file's presence, `--transport` (one of `transports`, the first the default), `--timeout-ms`
  /// and `--now`.
  struct Options {
    /// The flags every `publish` and `query` takes, besides its own.
    static let flags: Set<String> = ["relay", "secret-key-file", "transport", "timeout-ms", "now"]

    let relay: String
    let transport: String
    let deadline: ContinuousClock.Instant
    let clock: RelayConnection.Clock

    init(_ reader: ArgumentReader, transports: [String]) throws {
      _ = try reader.positionals(atMost: 0)
      relay = try reader.required("relay")
      _ = try reader.required("secret-key-file")
      transport = reader.value("transport") ?? transports[0]
      guard transports.contains(transport) else {
        throw UsageError("--transport must be \(transports.joined(separator: " or "))")
      }
      deadline = try RelayExchange.deadline(reader)
      clock = try RelayExchange.clock(reader)
    }
  }

  /// Runs a `publish` or `query` invocation: reads `Options.flags` and `commandFlags` and checks
  /// the options (usage errors, exit 2), reads the key, and prints a `CommandFailure` of the key
  /// or of `body` as the error line (exit 1).
  static func run(
    _ arguments: [String], commandFlags: Set<String>, transports: [String],
    _ body: (ArgumentReader, Options, SecretKey) async throws(CommandFailure) -> Int32
  ) async throws -> Int32 {
    let reader = try ArgumentReader(arguments, valueFlags: Options.flags.union(commandFlags))
    let options = try Options(reader, transports: transports)
    do throws(CommandFailure) {
      return try await body(reader, options, try key(reader))
    } catch {
      return error.print()
    }
  }

  /// Connects to `relay` over WebSocket, runs `body` on the connection, then `beforeClose` and
  /// `close(deadline:)` whether `body` threw or not, so no command leaves a connection open on
  /// failure and the close never outlasts the command's deadline.
  static func withConnection<Value>(
    to relay: String, key: SecretKey, clock: @escaping RelayConnection.Clock,
    deadline: ContinuousClock.Instant, beforeClose: (RelayConnection) async -> Void = { _ in },
    _ body: (RelayConnection) async throws(RelayConnectionError) -> Value
  ) async throws(RelayConnectionError) -> Value {
    let connection = try await RelayConnection.connect(to: relay, key: key, clock: clock, deadline: deadline)
    let result: Result<Value, RelayConnectionError>
    do throws(RelayConnectionError) {
      result = .success(try await body(connection))
    } catch {
      result = .failure(error)
    }
    await beforeClose(connection)
    await connection.close(deadline: deadline)
    return try result.get()
  }

  /// Writes each NOTICE the connection kept to standard error as `notice: <text>`.
  static func printNotices(_ connection: RelayConnection) async {
    for notice in await connection.notices { CLIOutput.error("notice: \(notice)") }
  }

  /// `--timeout-ms` as a deadline from now.
  static func deadline(_ reader: ArgumentReader) throws -> ContinuousClock.Instant {
    let timeout = try reader.integer("timeout-ms", default: 8000)!
    guard (1...maxTimeoutMilliseconds).contains(timeout) else {
      throw UsageError("--timeout-ms must be between 1 and \(maxTimeoutMilliseconds)")
    }
    return .now + .milliseconds(timeout)
  }

  /// `--now` as the clock of `AUTH` and NIP-98 events.
  static func clock(_ reader: ArgumentReader) throws -> RelayConnection.Clock {
    guard let now = try reader.integer("now") else { return RelayConnection.systemClock }
    return { now }
  }

  /// The account key (as `resolve` reads it).
  static func key(_ reader: ArgumentReader) throws(CommandFailure) -> SecretKey {
    do {
      return try SecretKeyFile.read(try reader.required("secret-key-file"))
    } catch {
      throw CommandFailure("invalid_key", "\(error)")
    }
  }

  /// A NIP-98 signed `POST` of `body` to `path` of the relay's HTTP origin.
  static func post(
    _ body: [UInt8], path: String, _ options: Options, key: SecretKey
  ) async throws(CommandFailure) -> HTTPTransportResponse {
    let origin: RelayOrigin
    do {
      origin = try RelayOrigin(options.relay)
    } catch {
      throw CommandFailure("invalid_url", error.message)
    }
    let url = origin.url(path: path)
    let header: String
    do {
      header = try NIP98.authorizationHeader(
        url: url, method: "POST", body: body, key: key, now: options.clock())
    } catch {
      throw CommandFailure("invalid_key", "\(error)")
    }
    let request = HTTPTransportRequest(
      url: url, method: "POST", headers: ["Authorization": header, "Content-Type": "application/json"],
      body: body,
      maxResponseBytes: maxResponseBytes)
    do throws(HTTPTransportError) {
      return try await URLSessionHTTPTransport.shared.send(request, deadline: options.deadline)
    } catch {
      switch error.code {
      case .unreachable: throw CommandFailure("unreachable", error.message)
      case .timeout: throw CommandFailure("timeout", "HTTP \(path)")
      case .cancelled: throw CommandFailure("cancelled", "HTTP \(path)")
      case .invalidURL: throw CommandFailure("invalid_url", error.message)
      default: throw CommandFailure("invalid_response", error.message)
      }
    }
  }

  /// The `error` member of a refused HTTP answer, else a short description of it.
  static func errorText(_ response: HTTPTransportResponse) -> String {
    let text = (try? JSONReader().read(response.body))?.objectValue?["error"]?.stringValue
    return "HTTP \(response.status)" + (text.map { ": \($0)" } ?? "")
  }
}
