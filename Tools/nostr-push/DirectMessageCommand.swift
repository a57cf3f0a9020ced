import Foundation
import GiftWrap
import NostrEvent
import NostrJSON
import NostrWebSocket

/// `nostr-push dm send`: one NIP-17 direct message, wrapped for each recipient and published
/// (`Docs/CommandLine.md`), for tests and the demo.
///
/// Each wrap is signed by its own fresh one-time key and published over its own connection,
/// whose NIP-42 challenge that key answers: the sender's key signs only the seal, inside the
/// encryption, and never meets the relay, so the relay cannot tie the wraps to the sender or to
/// one another.
enum DirectMessageCommand: CLICommand {
  static let name = "dm"
  static let summary = "send a NIP-17 direct message (gift wraps, one per recipient)"
  static let usage = """
    usage: nostr-push dm send --relay URL --secret-key-file FILE --to HEX [--to HEX]... --text T
                              [--subject S] [--backdate-seconds S] [--now UNIX]

    Builds the kind 14 rumor (a p tag per --to, then subject), seals it (kind 13, signed by the
    sender) and wraps it for each recipient (kind 1059, a fresh one-time key, created_at set back
    a random 0-2 days, or exactly --backdate-seconds, 0...172800), and publishes each wrap over
    its own WebSocket connection, answering NIP-42 with that wrap's one-time key, never the
    sender's. Prints {"rumor_id":"<hex>","wraps":[{"to":"<hex>","id":"<hex>","accepted":true|false,
    "message":"..."}]}; exit 1 when a wrap was not accepted (a connection failure is reported as
    that wrap's message), or {"error":"<code>","message":"..."} when nothing could be sent.
    """

  /// How long connecting and publishing one wrap may take.
  static let wrapTimeout: Duration = .seconds(8)
  /// The most recipients one message is wrapped for.
  static let maxRecipients = 100

  static func run(_ arguments: [String]) async throws -> Int32 {
    guard arguments.first == "send" else {
      throw UsageError(arguments.first.map { "unknown subcommand '\($0)'" } ?? "missing subcommand: send")
    }
    let reader = try ArgumentReader(
      Array(arguments.dropFirst()),
      valueFlags: ["relay", "secret-key-file", "to", "text", "subject", "backdate-seconds", "now"],
      repeatableFlags: ["to"])
    _ = try reader.positionals(atMost: 0)
    let relay = try reader.required("relay")
    let keyFile = try reader.required("secret-key-file")
    let recipients = reader.all("to")
    guard !recipients.isEmpty else { throw UsageError("--to is required") }
    guard recipients.count <= maxRecipients else { throw UsageError("at most \(maxRecipients) --to") }
    let text = try reader.required("text")
    let subject = reader.value("subject")
    let backdateSeconds = try reader.integer("backdate-seconds")
    let fixedNow = try reader.integer("now")
    let now = fixedNow ?? Int64(Date().timeIntervalSince1970)
    let clock: RelayConnection.Clock = { fixedNow ?? Int64(Date().timeIntervalSince1970) }

    do throws(CommandFailure) {
      let sender: SecretKey
      do {
        sender = try SecretKeyFile.read(keyFile)
      } catch {
        throw CommandFailure("invalid_key", "\(error)")
      }
      let backdate = try CommandFailure.reporting { () throws(GiftWrapError) in
        try backdateSeconds.map { s throws(GiftWrapError) in try WrapBackdate(seconds: s) } ?? .random
      }
      let wrapper = GiftWrapper(sender: sender)
      let rumor = wrapper.chatRumor(to: recipients, text: text, subject: subject, createdAt: now)
      var wraps: [(to: String, key: SecretKey, wrap: Event)] = []
      for recipient in recipients {
        let oneTimeKey = SecretKey.generate()
        let wrap = try CommandFailure.reporting { () throws(GiftWrapError) in
          try wrapper.wrap(rumor, for: recipient, now: now, backdate: backdate, oneTimeKey: oneTimeKey)
        }
        wraps.append((recipient, oneTimeKey, wrap))
      }
      var lines: [JSONValue] = []
      var allAccepted = true
      for (recipient, oneTimeKey, wrap) in wraps {
        let result = await publish(wrap, to: relay, key: oneTimeKey, clock: clock)
        allAccepted = allAccepted && result.accepted
        lines.append(
          .object(
            JSONObject([
              "to": .string(recipient), "id": .string(wrap.id), "accepted": .bool(result.accepted),
              "message": .string(result.message),
            ])))
      }
      CLIOutput.line(
        JSONWriter.string(.object(JSONObject(["rumor_id": .string(rumor.id), "wraps": .array(lines)]))))
      return allAccepted ? ExitCode.success : ExitCode.failure
    } catch {
      return error.print()
    }
  }

  /// Publishes one wrap over a connection of its own, authenticated (when asked) as the wrap's
  /// one-time key; a failure to connect or publish becomes a refusal with the error's text.
  private static func publish(
    _ wrap: Event, to relay: String, key: SecretKey, clock: @escaping RelayConnection.Clock
  ) async -> (accepted: Bool, message: String) {
    let deadline = ContinuousClock.now + wrapTimeout
    do throws(RelayConnectionError) {
      let result = try await RelayExchange.withConnection(
        to: relay, key: key, clock: clock, deadline: deadline, beforeClose: RelayExchange.printNotices
      ) { connection throws(RelayConnectionError) in
        try await connection.publish(wrap, deadline: deadline)
      }
      return (result.accepted, result.message)
    } catch {
      return (false, "error: \(error.code.rawValue): \(error.message)")
    }
  }
}
