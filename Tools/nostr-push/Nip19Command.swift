import Bech32
import Foundation
import NostrJSON

/// `nostr-push nip19`: decodes, encodes and compacts NIP-19 bech32 entities (see `Docs/CommandLine.md`).
struct Nip19Command: CLICommand {
  static let name = "nip19"
  static let summary = "decode, encode or compact NIP-19 bech32 entities"
  static let usage = """
    usage: nostr-push nip19 decode [--jsonl] [STRING|-]
           nostr-push nip19 encode npub|nsec|note <64 hex>
           nostr-push nip19 encode nprofile --pubkey HEX [--relay URL]...
           nostr-push nip19 encode nevent --id HEX [--relay URL]... [--author HEX] [--kind N]
           nostr-push nip19 encode naddr --identifier TEXT --pubkey HEX --kind N [--relay URL]...
           nostr-push nip19 compact <hex|npub>

    decode   prints one JSON line per input; STRING, or standard input when absent or '-'.
             With --jsonl every line is one input (blank lines skipped). An optional 'nostr:'
             prefix is accepted. Exit 1 if any input is invalid.
    encode   prints the bech32 string.
    compact  prints the short form (npub14f8…9nsy) of a hex key or npub, or 'Someone'.
    """

  static func run(_ arguments: [String]) async throws -> Int32 {
    guard let subcommand = arguments.first else {
      throw UsageError("missing subcommand: decode, encode or compact")
    }
    let rest = Array(arguments.dropFirst())
    switch subcommand {
    case "decode": return try decode(rest)
    case "encode": return try encode(rest)
    case "compact": return try compact(rest)
    default: throw UsageError("unknown subcommand '\(subcommand)'")
    }
  }

  // MARK: decode

  private static func decode(_ arguments: [String]) throws -> Int32 {
    let reader = try ArgumentReader(arguments, valueFlags: [], booleanFlags: ["jsonl"])
    let source = try reader.positionals(atMost: 1).first.flatMap { $0 == "-" ? nil : $0 }
    var allValid = true
    func answer(_ input: [UInt8]) {
      let line = decodeLine(input)
      allValid = allValid && line.valid
      CLIOutput.line(bytes: line.json)
    }
    if let source {
      if reader.has("jsonl") {
        for line in source.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        where !trimmed(Array(line)).isEmpty {
          answer(Array(line))
        }
      } else {
        answer(Array(source.utf8))
      }
    } else if reader.has("jsonl") {
      try LineStream(descriptor: STDIN_FILENO, maxLineBytes: maxInputBytes).forEachLine { line in
        switch line {
        case .bytes(let bytes):
          let input = Array(bytes)
          if !trimmed(input).isEmpty { answer(input) }
        case .oversized:
          allValid = false
          CLIOutput.line(bytes: tooLongLine)
        }
      }
    } else {
      do {
        answer(try CommandInput.readWhole(STDIN_FILENO, limit: maxInputBytes))
      } catch {
        allValid = false
        CLIOutput.line(bytes: tooLongLine)
      }
    }
    return allValid ? ExitCode.success : ExitCode.failure
  }

  /// The longest input line (or single input) kept in memory: 16 MiB, as `Docs/CommandLine.md` sets.
  static let maxInputBytes = 16 * 1024 * 1024

  /// The answer to an input over `maxInputBytes`.
  private static let tooLongLine = CommandFailure(
    Bech32Error.Code.invalidLength.rawValue, "the input is over \(maxInputBytes) bytes and was skipped"
  ).line

  /// The output line for one input, and whether it decoded.
  private static func decodeLine(_ input: [UInt8]) -> (json: [UInt8], valid: Bool) {
    let text = String(decoding: trimmed(input), as: UTF8.self)
    do {
      return (JSONWriter.bytes(json(for: try NIP19Entity(decoding: text))), true)
    } catch {
      return (CommandFailure(error).line, false)
    }
  }

  /// `bytes` without leading and trailing spaces, tabs and line ends.
  private static func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
    let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    guard let first = bytes.firstIndex(where: { !isSpace($0) }),
      let last = bytes.lastIndex(where: { !isSpace($0) })
    else { return [] }
    return bytes[first...last]
  }

  /// An entity as the JSON object of `Docs/CommandLine.md`, keys in the documented order.
  private static func json(for entity: NIP19Entity) -> JSONValue {
    let relays: ([String]) -> JSONValue = { .array($0.map(JSONValue.string)) }
    let object: KeyValuePairs<String, JSONValue> =
      switch entity {
      case .npub(let pubkey): ["type": .string("npub"), "pubkey": .string(pubkey)]
      case .nsec(let secretKey): ["type": .string("nsec"), "secret_key": .string(secretKey)]
      case .note(let id): ["type": .string("note"), "id": .string(id)]
      case .nprofile(let pubkey, let list):
        ["type": .string("nprofile"), "pubkey": .string(pubkey), "relays": relays(list)]
      case .nevent(let id, let list, let author, let kind):
        [
          "type": .string("nevent"), "id": .string(id), "relays": relays(list),
          "author": author.map(JSONValue.string) ?? .null, "kind": kind.map { .integer(Int64($0)) } ?? .null,
        ]
      case .naddr(let identifier, let pubkey, let kind, let list):
        [
          "type": .string("naddr"), "identifier": .string(identifier), "pubkey": .string(pubkey),
          "kind": .integer(Int64(kind)), "relays": relays(list),
        ]
      }
    return .object(JSONObject(object))
  }

  // MARK: encode

  private static func encode(_ arguments: [String]) throws -> Int32 {
    guard let type = arguments.first else {
      throw UsageError("missing entity type: npub, nsec, note, nprofile, nevent or naddr")
    }
    let rest = Array(arguments.dropFirst())
    let entity: NIP19Entity
    switch type {
    case "npub", "nsec", "note":
      let reader = try ArgumentReader(rest, valueFlags: [])
      guard let hex = try reader.positionals(atMost: 1).first else {
        throw UsageError("encode \(type) needs a 64-hex argument")
      }
      entity = type == "npub" ? .npub(pubkey: hex) : type == "nsec" ? .nsec(secretKey: hex) : .note(id: hex)
    case "nprofile":
      let reader = try ArgumentReader(rest, valueFlags: ["pubkey", "relay"], repeatableFlags: ["relay"])
      _ = try reader.positionals(atMost: 0)
      entity = .nprofile(pubkey: try reader.required("pubkey"), relays: reader.all("relay"))
    case "nevent":
      let reader = try ArgumentReader(
        rest, valueFlags: ["id", "relay", "author", "kind"], repeatableFlags: ["relay"])
      _ = try reader.positionals(atMost: 0)
      entity = .nevent(
        id: try reader.required("id"), relays: reader.all("relay"), author: reader.value("author"),
        kind: try kind(reader))
    case "naddr":
      let reader = try ArgumentReader(
        rest, valueFlags: ["identifier", "pubkey", "kind", "relay"], repeatableFlags: ["relay"])
      _ = try reader.positionals(atMost: 0)
      guard let kind = try kind(reader) else { throw UsageError("--kind is required") }
      entity = .naddr(
        identifier: try reader.required("identifier"), pubkey: try reader.required("pubkey"), kind: kind,
        relays: reader.all("relay"))
    default:
      throw UsageError("unknown entity type '\(type)'")
    }
    do {
      CLIOutput.line(try entity.encoded())
      return ExitCode.success
    } catch {
      let field = error.field.map { " (\($0))" } ?? ""
      CLIOutput.error("nostr-push nip19: \(error.code.rawValue)\(field): \(error.message)")
      return ExitCode.failure
    }
  }

  /// The `--kind` flag, if given; the range is checked by the encoder.
  private static func kind(_ reader: ArgumentReader) throws -> Int? {
    try reader.integer("kind").map { Int($0) }
  }

  // MARK: compact

  private static func compact(_ arguments: [String]) throws -> Int32 {
    let reader = try ArgumentReader(arguments, valueFlags: [])
    guard let key = try reader.positionals(atMost: 1).first else {
      throw UsageError("compact needs a hex key or an npub")
    }
    CLIOutput.line(CompactNpub.display(for: key))
    return ExitCode.success
  }
}
