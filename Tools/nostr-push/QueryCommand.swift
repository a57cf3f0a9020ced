import Foundation
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrWebSocket
import NotificationResolver

/// `nostr-push query`: NIP-01 filters to a relay, over WebSocket (`REQ`) or HTTP (`POST /query`);
/// every kept event as one line.
enum QueryCommand: CLICommand {
  static let name = "query"
  static let summary = "query a relay with NIP-01 filters (REQ or POST /query), one event per line"
  static let usage = """
    usage: nostr-push query --relay URL --secret-key-file FILE [--filters FILE]
                            [--transport websocket|query] [--timeout-ms 8000] [--now UNIX]

    Sends the filters in FILE (default [{"limit":100}]) and prints each verified, matching event
    as one compact JSON line in arrival order, then {"events":n,"dropped":n,"notices":n,
    "elapsed_ms":n} on standard error (exit 0); failing, one {"error":…} line (exit 1).
    """

  static func run(_ arguments: [String]) async throws -> Int32 {
    let start = ContinuousClock.now
    return try await RelayExchange.run(
      arguments, commandFlags: ["filters"], transports: ["websocket", "query"]
    ) { reader, options, key throws(CommandFailure) in
      let filters: [Filter]
      if let path = reader.value("filters") {
        do {
          filters = try FilterFile.read(path)
        } catch {
          throw CommandFailure("invalid_filters", "\(error)")
        }
      } else {
        filters = [Filter(limit: 100)]
      }
      let (events, counters) =
        options.transport == "websocket"
        ? try await overWebSocket(filters, options, key: key)
        : try await overHTTP(filters, options, key: key)
      for event in events { CLIOutput.line(bytes: event.jsonBytes()) }
      let elapsed = start.duration(to: .now).wholeMilliseconds
      CLIOutput.error(
        JSONWriter.string(
          .object(
            JSONObject([
              "events": .integer(Int64(events.count)), "dropped": .integer(Int64(counters.dropped)),
              "notices": .integer(Int64(counters.notices)), "elapsed_ms": .integer(elapsed),
            ]))))
      return ExitCode.success
    }
  }

  private static func overWebSocket(
    _ filters: [Filter], _ options: RelayExchange.Options, key: SecretKey
  ) async throws(CommandFailure) -> ([Event], RelayCounters) {
    do throws(RelayConnectionError) {
      return try await RelayExchange.withConnection(
        to: options.relay, key: key, clock: options.clock, deadline: options.deadline,
        beforeClose: RelayExchange.printNotices
      ) { connection throws(RelayConnectionError) in
        let events = try await connection.query(filters, deadline: options.deadline)
        return (events, await connection.counters)
      }
    } catch {
      throw CommandFailure(error)
    }
  }

  private static func overHTTP(
    _ filters: [Filter], _ options: RelayExchange.Options, key: SecretKey
  ) async throws(CommandFailure) -> ([Event], RelayCounters) {
    let body = JSONWriter.bytes(.array(filters.map(\.jsonValue)))
    let response = try await RelayExchange.post(body, path: "/query", options, key: key)
    guard (200..<300).contains(response.status) else {
      throw CommandFailure("relay_error", RelayExchange.errorText(response))
    }
    guard let elements = (try? JSONReader().read(response.body))?.arrayValue else {
      throw CommandFailure("invalid_response", "the answer is not a JSON array")
    }
    var counters = RelayCounters()
    var kept: [Event] = []
    var seen = Set<String>()
    for element in elements {
      guard let event = try? Event(jsonValue: element), event.verify().isValid,
        filters.contains(where: { $0.matches(event) }), seen.insert(event.id).inserted
      else {
        counters.dropped += 1
        continue
      }
      kept.append(event)
    }
    counters.events = kept.count
    return (kept, counters)
  }
}
