import Foundation
import NostrEvent
import NostrHTTP
import NostrJSON
import NostrWebSocket
import NotificationResolver

/// `nostr-push query`: NIP-01 filters to a relay, over WebSocket (`REQ`) or HTTP (`POST /query`);
/// every kept event as one line (`relay-connection.md` §6).
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
    let reader = try ArgumentReader(
      arguments, valueFlags: ["relay", "secret-key-file", "filters", "transport", "timeout-ms", "now"])
    let options = try RelayExchange.Options(reader, transports: ["websocket", "query"])
    let (relay, transport, deadline, clock) = (
      options.relay, options.transport, options.deadline, options.clock
    )
    do throws(CommandFailure) {
      let key = try RelayExchange.key(reader)
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
        transport == "websocket"
        ? try await overWebSocket(filters, relay: relay, key: key, clock: clock, deadline: deadline)
        : try await overHTTP(filters, relay: relay, key: key, clock: clock, deadline: deadline)
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
    } catch {
      return error.print()
    }
  }

  private static func overWebSocket(
    _ filters: [Filter], relay: String, key: SecretKey, clock: @escaping RelayConnection.Clock,
    deadline: ContinuousClock.Instant
  ) async throws(CommandFailure) -> ([Event], RelayCounters) {
    do throws(RelayConnectionError) {
      let connection = try await RelayConnection.connect(
        to: relay, key: key, clock: clock, deadline: deadline)
      let events: [Event]
      do throws(RelayConnectionError) {
        events = try await connection.query(filters, deadline: deadline)
      } catch {
        await PublishCommand.printNotices(connection)
        await connection.close()
        throw error
      }
      await PublishCommand.printNotices(connection)
      let counters = await connection.counters
      await connection.close()
      return (events, counters)
    } catch {
      throw CommandFailure(error)
    }
  }

  private static func overHTTP(
    _ filters: [Filter], relay: String, key: SecretKey, clock: RelayConnection.Clock,
    deadline: ContinuousClock.Instant
  ) async throws(CommandFailure) -> ([Event], RelayCounters) {
    let body = JSONWriter.bytes(.array(filters.map(\.jsonValue)))
    let response = try await RelayExchange.post(
      body, path: "/query", relay: relay, key: key, clock: clock, deadline: deadline)
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
