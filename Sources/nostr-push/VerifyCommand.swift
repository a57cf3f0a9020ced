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
        var batch = LineBatch()
        let verifyBatch = {
          allValid = verify(batch, threads: threads, into: output) && allValid
          batch.removeAll()
        }
        let beforeRead = {
          if !batch.isEmpty && !inputIsReady(descriptor) { verifyBatch() }
          output.flush()
        }
        try stream.forEachLine(beforeRead: beforeRead) { line in
          switch line {
          case .oversized:
            batch.appendOversized()
          case .bytes(let bytes):
            guard !isBlank(bytes) else { return }
            batch.append(bytes)
          }
          if batch.isFull { verifyBatch() }
        }
        if !batch.isEmpty { verifyBatch() }
      } else {
        let document = try CommandInput.readWhole(descriptor, limit: maxDocumentBytes)
        let (text, valid) = document.withUnsafeBytes { verdict(for: $0) }
        allValid = valid
        output.appendLine(text)
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

  /// Verifies every line of `batch` on up to `threads` workers and appends the output lines in
  /// input order; returns whether every line was a valid event.
  private static func verify(_ batch: LineBatch, threads: Int, into output: OutputBuffer) -> Bool {
    let verdicts = BatchVerifier.map(count: batch.count, threads: threads, placeholder: ([UInt8](), true)) {
      index in
      batch.withLine(index) { bytes in
        guard let bytes else {
          return (
            failure(
              id: nil, code: "malformed_json",
              message: "line is over the \(maxDocumentBytes)-byte limit and was skipped"), false
          )
        }
        return verdict(for: bytes)
      }
    }
    var allValid = true
    for (line, valid) in verdicts {
      output.appendLine(line)
      allValid = allValid && valid
    }
    return allValid
  }

  /// Whether a read of `descriptor` would return at once (data or end of input waiting): when it
  /// would block, the lines read so far are verified and written first, so that an interactive
  /// producer sees its answers without waiting for a full batch.
  private static func inputIsReady(_ descriptor: Int32) -> Bool {
    var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&request, 1, 0) != 0
  }

  /// The output line for one event document, and whether the event is valid.
  static func verdict(for bytes: UnsafeRawBufferPointer) -> (line: [UInt8], valid: Bool) {
    switch verifiedEvent(bytes) {
    case .success(let (event, rule)):
      let object = JSONObject([
        "id": .string(event.id), "valid": .bool(true), "escaping": .string(rule.rawValue),
      ])
      return (JSONWriter.bytes(.object(object)), true)
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
        Failure(id: nil, code: "malformed_json", message: "malformed JSON: \(error.description)"))
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
          message: "id is not the SHA-256 of the event's canonical serialization"))
    case .badSignature:
      return .failure(
        Failure(
          id: givenID, code: "bad_signature", message: "signature does not verify for the id and pubkey"))
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
