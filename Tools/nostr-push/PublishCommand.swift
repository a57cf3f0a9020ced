import Foundation
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrWebSocket
import NotificationResolver

/// `nostr-push publish`: one signed event to a relay, over WebSocket (`EVENT`) or HTTP
/// (`POST /events`), and the relay's answer as one line.
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
    try await RelayExchange.run(arguments, commandFlags: ["event-file"], transports: ["websocket", "http"]) {
      reader, options, key throws(CommandFailure) in
      let bytes = try readEvent(reader.value("event-file"))
      let event: Event
      do throws(EventError) {
        event = try Event(json: bytes)
      } catch {
        throw CommandFailure("invalid_event", error.message)
      }
      let result =
        options.transport == "websocket"
        ? try await overWebSocket(event, options, key: key)
        : try await overHTTP(bytes, options, key: key)
      CLIOutput.line(
        JSONWriter.string(
          .object(
            JSONObject([
              "accepted": .bool(result.accepted), "id": .string(result.id),
              "message": .string(result.message),
            ]))))
      return ExitCode.success
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
    _ event: Event, _ options: RelayExchange.Options, key: SecretKey
  ) async throws(CommandFailure) -> PublishResult {
    do throws(RelayConnectionError) {
      return try await RelayExchange.withConnection(
        to: options.relay, key: key, clock: options.clock, deadline: options.deadline,
        beforeClose: RelayExchange.printNotices
      ) { connection throws(RelayConnectionError) in
        try await connection.publish(event, deadline: options.deadline)
      }
    } catch {
      throw CommandFailure(error)
    }
  }

  private static func overHTTP(
    _ body: [UInt8], _ options: RelayExchange.Options, key: SecretKey
  ) async throws(CommandFailure) -> PublishResult {
    let response = try await RelayExchange.post(body, path: "/events", options, key: key)
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
}
