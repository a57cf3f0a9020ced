import Foundation
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrWebSocket
import NotificationResolver

/// `nostr-push publish`: one signed event to a relay, over WebSocket (`EVENT`) or HTTP
/// (`POST /events`), and the relay's answer as one line (`relay-connection.md` §6).
enum PublishCommand: CLICommand {
  static let name = "publish"
  static let summary = "publish one signed event to a relay (EVENT or POST /events)"
  static let usage = """
    usage: nostr-push publish --relay URL --secret-key-file FILE [--transport websocket|http]
                              [--event-file FILE] [--timeout-ms 8000] [--now UNIX]

    Sends the signed event in FILE (else standard input) unchanged and prints the relay's answer:
    {"accepted":true|false,"id":"<hex>","message":"<the relay's text>"} (exit 0), or
    {"error":"<code>","message":"…"} (exit 1). The key signs NIP-42 AUTH (websocket) or NIP-98
    (http); --now fixes their created_at.
    """

  static func run(_ arguments: [String]) async throws -> Int32 {
    let reader = try ArgumentReader(
      arguments, valueFlags: ["relay", "secret-key-file", "transport", "event-file", "timeout-ms", "now"])
    let options = try RelayExchange.Options(reader, transports: ["websocket", "http"])
    let (relay, transport, deadline, clock) = (
      options.relay, options.transport, options.deadline, options.clock
    )
    do throws(CommandFailure) {
      let key = try RelayExchange.key(reader)
      let bytes = try readEvent(reader.value("event-file"))
      let event: Event
      do {
        event = try Event(json: bytes)
      } catch {
        throw CommandFailure("invalid_event", error.message)
      }
      let result =
        transport == "websocket"
        ? try await overWebSocket(event, relay: relay, key: key, clock: clock, deadline: deadline)
        : try await overHTTP(bytes, relay: relay, key: key, clock: clock, deadline: deadline)
      CLIOutput.line(
        JSONWriter.string(
          .object(
            JSONObject([
              "accepted": .bool(result.accepted), "id": .string(result.id),
              "message": .string(result.message),
            ]))))
      return ExitCode.success
    } catch {
      return error.print()
    }
  }

  private static func readEvent(_ path: String?) throws(CommandFailure) -> [UInt8] {
    if let path {
      do {
        return try BoundedFile.bytes(path, maxBytes: RelayExchange.maxEventFileBytes, what: "event file")
      } catch {
        throw CommandFailure("invalid_event", "\(error)")
      }
    }
    let data = (try? FileHandle.standardInput.read(upToCount: RelayExchange.maxEventFileBytes + 1)) ?? Data()
    guard data.count <= RelayExchange.maxEventFileBytes else {
      throw CommandFailure(
        "invalid_event", "standard input over \(RelayExchange.maxEventFileBytes) bytes")
    }
    return [UInt8](data)
  }

  private static func overWebSocket(
    _ event: Event, relay: String, key: SecretKey, clock: @escaping RelayConnection.Clock,
    deadline: ContinuousClock.Instant
  ) async throws(CommandFailure) -> PublishResult {
    do throws(RelayConnectionError) {
      let connection = try await RelayConnection.connect(
        to: relay, key: key, clock: clock, deadline: deadline)
      let result: PublishResult
      do throws(RelayConnectionError) {
        result = try await connection.publish(event, deadline: deadline)
      } catch {
        await printNotices(connection)
        await connection.close()
        throw error
      }
      await printNotices(connection)
      await connection.close()
      return result
    } catch {
      throw CommandFailure(error)
    }
  }

  private static func overHTTP(
    _ body: [UInt8], relay: String, key: SecretKey, clock: RelayConnection.Clock,
    deadline: ContinuousClock.Instant
  ) async throws(CommandFailure) -> PublishResult {
    let response = try await RelayExchange.post(
      body, path: "/events", relay: relay, key: key, clock: clock, deadline: deadline)
    if response.status == 401 {
      throw CommandFailure("auth_failed", RelayExchange.errorText(response))
    }
    guard response.status == 200 || response.status == 400 else {
      throw CommandFailure("relay_error", RelayExchange.errorText(response))
    }
    guard let object = (try? JSONReader().read(response.body))?.objectValue,
      let accepted = object["accepted"]?.boolValue, let message = object["message"]?.stringValue
    else {
      throw CommandFailure("invalid_response", "HTTP \(response.status) without an answer object")
    }
    let id = object["id"]?.stringValue ?? ""
    return PublishResult(id: id, accepted: accepted, message: message)
  }

  /// Writes each kept NOTICE to standard error as `notice: <text>`.
  static func printNotices(_ connection: RelayConnection) async {
    for notice in await connection.notices { CLIOutput.error("notice: \(notice)") }
  }
}
