import NostrEvent
import NostrJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `nostr-push verify [--jsonl] [FILE|-]`: checks NIP-01 ids and BIP-340 signatures.
enum VerifyCommand: CLICommand {
  /// The largest event document (and the longest `--jsonl` line) accepted: 16 MiB.
  static let maxDocumentBytes = JSONReader.defaultMaxBytes

  /// The most workers `--threads` accepts.
  static let maxThreads = 64

  static let name = "verify"
  static let summary = "check NIP-01 event ids and BIP-340 signatures"
  static let usage = """
    usage: nostr-push verify [--jsonl] [--threads N] [FILE|-]

    Reads one event JSON object (or, with --jsonl, one per line; blank lines skipped) from FILE
    or standard input and prints one JSON line per event:
      {"id":"<64 hex>","valid":true,"escaping":"common"|"literal"}
      {"id":<id as given or null>,"valid":false,"error":"<code>","message":"<text>"}
    Codes: malformed_json, invalid_field, id_mismatch, bad_signature.
    With --jsonl, events are verified on every core (--threads N: N workers, 1 to 64; 1 for one
    core); the output is the same, in input order, whatever N.
    Exit status: 0 when every event is valid, 1 otherwise, 2 for a usage error.
    """

  static func run(_ arguments: [String]) async throws -> Int32 {
    let reader = try ArgumentReader(arguments, valueFlags: ["threads"], booleanFlags: ["jsonl"])
    let path = try reader.positionals(atMost: 1).first
    let threads = try threadCount(reader.value("threads"))
    let descriptor: Int32
    do {
      descriptor = try CommandInput.open(path)
    } catch {
      CLIOutput.error("nostr-push verify: \(error.message)")
      return ExitCode.failure
    }
    defer { if descriptor != STDIN_FILENO { close(descriptor) } }
    let output = OutputBuffer()
    var allValid = true
    do {
      if reader.has("jsonl") {
        let stream = LineStream(descriptor: descriptor, maxLineBytes: maxDocumentBytes)
        let pipeline = VerifyPipeline(threads: threads, output: output)
        let beforeRead = {
          if pipeline.hasPendingLines && !inputIsReady(descriptor) { pipeline.drain() }
          output.flush()
        }
        try stream.forEachLine(beforeRead: beforeRead) { line in
          switch line {
          case .oversized:
            pipeline.appendOversized()
          case .bytes(let bytes):
            guard !isBlank(bytes) else { return }
            pipeline.append(bytes)
          }
        }
        pipeline.drain()
        allValid = pipeline.allValid
      } else {
        let document = try CommandInput.readWhole(descriptor, limit: maxDocumentBytes)
        let verifier = EventDocumentVerifier()
        var line: [UInt8] = []
        allValid = document.withUnsafeBytes { appendVerdict(for: $0, verifier: verifier, to: &line) }
        output.append(line)
      }
    } catch {
      output.flush()
      CLIOutput.error("nostr-push verify: \(error.message)")
      return ExitCode.failure
    }
    output.flush()
    return allValid ? ExitCode.success : ExitCode.failure
  }

  /// The `--threads` value: every core when absent, else an integer from 1 to `maxThreads`.
  static func threadCount(_ value: String?) throws -> Int {
    guard let value else { return min(maxThreads, BatchVerifier.activeCores) }
    guard let count = Int(value), (1...maxThreads).contains(count) else {
      throw UsageError("--threads must be an integer from 1 to \(maxThreads), got '\(value)'")
    }
    return count
  }

  /// The answer lines of lines `range` of `batch` (in order, each with its newline), judged by
  /// one worker's `verifier`, and whether every one was a valid event: one chunk of
  /// `VerifyPipeline`.
  @Sendable static func answers(
    verifier: inout EventDocumentVerifier, batch: LineBatch, range: Range<Int>
  ) -> VerifyPipeline.Answers {
    var lines: [UInt8] = []
    lines.reserveCapacity(range.count * 112)
    var valid = true
    for index in range {
      let lineValid = batch.withLine(index) { appendAnswer(for: $0, verifier: verifier, to: &lines) }
      valid = valid && lineValid
    }
    return (lines, valid)
  }

  /// Appends the output line (with its newline) for one `--jsonl` line, nil for a line that was
  /// over the limit and skipped; returns whether it was a valid event.
  static func appendAnswer(
    for line: UnsafeRawBufferPointer?, verifier: EventDocumentVerifier, to lines: inout [UInt8]
  ) -> Bool {
    guard let line else {
      lines += failure(
        id: nil, code: "malformed_json",
        message: "line is over the \(maxDocumentBytes)-byte limit and was skipped")
      lines.append(0x0A)
      return false
    }
    return appendVerdict(for: line, verifier: verifier, to: &lines)
  }

  /// Appends the output line (with its newline) for one event document to `lines`; returns
  /// whether the event is valid. Documents in the common shape are judged in place by
  /// `verifier` and their line written straight into `lines`; any other goes through `verdict`.
  static func appendVerdict(
    for bytes: UnsafeRawBufferPointer, verifier: EventDocumentVerifier, to lines: inout [UInt8]
  ) -> Bool {
    let id = { (offset: Int) in UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 64)]) }
    switch verifier.verify(bytes) {
    case .valid(let rule, let idOffset):
      appendValidLine(id: id(idOffset), rule: rule, to: &lines)
      lines.append(0x0A)
      return true
    case .idMismatch(let idOffset):
      lines += failure(
        id: String(decoding: id(idOffset), as: UTF8.self), code: "id_mismatch", message: idMismatchMessage)
    case .badSignature(let idOffset):
      lines += failure(
        id: String(decoding: id(idOffset), as: UTF8.self), code: "bad_signature", message: badSignatureMessage
      )
    case .uncommonShape:
      let (line, valid) = verdict(for: bytes)
      lines += line
      lines.append(0x0A)
      return valid
    }
    lines.append(0x0A)
    return false
  }

  /// Appends `{"id":"<id>","valid":true,"escaping":"<rule>"}` for a verified event's id (64
  /// lowercase hex, so it needs no escaping): the one writer of the valid line, fast path or not.
  private static func appendValidLine(
    id: some Sequence<UInt8>, rule: NostrStringEscaper.Rule, to lines: inout [UInt8]
  ) {
    lines += #"{"id":""#.utf8
    lines += id
    lines +=
      rule == .common
      ? #"","valid":true,"escaping":"common"}"#.utf8 : #"","valid":true,"escaping":"literal"}"#.utf8
  }

  static let idMismatchMessage = "id is not the SHA-256 of the event's canonical serialization"
  static let badSignatureMessage = "signature does not verify for the id and pubkey"

  /// Whether a read of `descriptor` would return at once (data or end of input waiting): when it
  /// would block, the lines read so far are verified and written first, so that an interactive
  /// producer sees its answers without waiting for a full batch.
  private static func inputIsReady(_ descriptor: Int32) -> Bool {
    var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&request, 1, 0) != 0
  }

  /// The output line for one event document read the general way (strict reader, then
  /// `Event(jsonValue:)`, so every error is the exact one), and whether the event is valid.
  static func verdict(for bytes: UnsafeRawBufferPointer) -> (line: [UInt8], valid: Bool) {
    switch verifiedEvent(bytes) {
    case .success(let (event, rule)):
      var line: [UInt8] = []
      appendValidLine(id: event.id.utf8, rule: rule, to: &line)
      return (line, true)
    case .failure(let failure):
      return (self.failure(id: failure.id, code: failure.code, message: failure.message), false)
    }
  }

  /// Why a document is not a valid signed event: the id as given (if any), `verify`'s code and
  /// its message.
  struct Failure: Error {
    var id: String?
    var code: String
    var message: String
  }

  /// The event in one document with the escaping rule its id matched, or why it is not a valid
  /// signed event; `lease open` judges its input through it too.
  static func verifiedEvent(
    _ bytes: UnsafeRawBufferPointer
  ) -> Result<(Event, NostrStringEscaper.Rule), Failure> {
    let value: JSONValue
    do {
      value = try JSONReader(maxBytes: maxDocumentBytes).read(buffer: bytes)
    } catch {
      return .failure(
        Failure(id: nil, code: "malformed_json", message: Event.malformed(error).message))
    }
    let givenID = value.objectValue?["id"]?.stringValue
    let event: Event
    do {
      event = try Event(jsonValue: value)
    } catch {
      return .failure(Failure(id: givenID, code: error.code.rawValue, message: error.message))
    }
    switch event.verify() {
    case .valid(let rule):
      return .success((event, rule))
    case .idMismatch:
      return .failure(
        Failure(
          id: givenID, code: "id_mismatch",
          message: idMismatchMessage))
    case .badSignature:
      return .failure(
        Failure(
          id: givenID, code: "bad_signature", message: badSignatureMessage))
    }
  }

  private static func failure(id: String?, code: String, message: String) -> [UInt8] {
    let object = JSONObject([
      "id": id.map { .string($0) } ?? .null, "valid": .bool(false), "error": .string(code),
      "message": .string(message),
    ])
    return JSONWriter.bytes(.object(object))
  }

  private static func isBlank(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
  }
}
