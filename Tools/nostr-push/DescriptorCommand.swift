import Foundation
import NostrJSON
import PushDescriptor

/// `nostr-push descriptor`: reads a NIP-11 document from a file, standard input or a relay URL
/// and prints whether it carries a valid push descriptor (see `Docs/CommandLine.md`).
struct DescriptorCommand: CLICommand {
  static let name = "descriptor"
  static let summary = "validate a relay's NIP-11 push descriptor (file, URL or -)"
  static let usage = """
    usage: nostr-push descriptor [--extension NAME] [--app-profile ID --transport apns|fcm] FILE|URL|-

    Reads a NIP-11 relay information document from FILE, standard input (-) or a relay URL
    (http, https, ws, wss; fetched with Accept: application/nostr+json) and prints one line:
      {"valid":true,"protocol":"nip-pl"|"buzz-push-v1","push":{...},"ignored_top_level_keys":[...]}
      {"valid":false,"field":"<path>","error":"<code>","message":"<text>"}
    Exit status 0 when the descriptor is valid, 1 otherwise.

    options:
      --extension NAME     accept only this protocol generation: nip-pl or buzz-push-v1
                           (default: either)
      --app-profile ID     require this app profile (needs --transport; nip-pl only)
      --transport T        the app profile's transport: apns or fcm
    """

  /// The largest document read from a file or standard input: the CLI's 16 MiB cap.
  static let maxInputBytes = 16 * 1024 * 1024
  /// The transports `--transport` accepts.
  static let transports: Set<String> = ["apns", "fcm"]

  /// Refuses a `--transport` outside `transports` as a usage error; `descriptor`, `lease build`
  /// and `enroll` check the flag through it, so all three word the refusal alike.
  static func checkTransport(_ transport: String) throws {
    guard transports.contains(transport) else {
      throw UsageError("--transport must be apns or fcm, got '\(transport)'")
    }
  }

  static func run(_ arguments: [String]) async throws -> Int32 {
    let reader = try ArgumentReader(arguments, valueFlags: ["extension", "app-profile", "transport"])
    let positionals = try reader.positionals(atMost: 1)
    guard let input = positionals.first else { throw UsageError("FILE, URL or - is required") }
    let protocols = try protocols(reader)
    let requiredAppProfile = try appProfile(reader)

    let result: Result<RelayDocument, PushDescriptorError>
    if isURL(input) {
      do {
        result = .success(
          try await PushDiscovery().discover(
            relay: input, protocols: protocols, requiredAppProfile: requiredAppProfile))
      } catch {
        result = .failure(error)
      }
    } else {
      guard let bytes = readInput(input) else { return ExitCode.failure }
      result = Result { () throws(PushDescriptorError) in
        try RelayDocument(bytes: bytes, protocols: protocols, requiredAppProfile: requiredAppProfile)
      }
    }
    CLIOutput.line(bytes: JSONWriter.bytes(outputLine(result)))
    if case .success = result { return ExitCode.success }
    return ExitCode.failure
  }

  /// The output object: key order `valid, protocol, push, ignored_top_level_keys` or
  /// `valid, field, error, message`.
  static func outputLine(_ result: Result<RelayDocument, PushDescriptorError>) -> JSONValue {
    switch result {
    case .success(let document):
      return .object(
        JSONObject([
          "valid": .bool(true), "protocol": .string(document.push.pushProtocol.rawValue),
          "push": document.push.jsonValue,
          "ignored_top_level_keys": .array(document.ignoredTopLevelKeys.map(JSONValue.string)),
        ]))
    case .failure(let error):
      return .object(
        JSONObject([
          "valid": .bool(false), "field": .string(error.field ?? PushDescriptorError.documentField),
          "error": .string(error.code.rawValue),
          "message": .string(error.message),
        ]))
    }
  }

  /// `--extension`: one generation by name; both when the flag is absent.
  private static func protocols(_ reader: ArgumentReader) throws -> Set<PushProtocol> {
    guard let name = reader.value("extension") else { return Set(PushProtocol.allCases) }
    guard let generation = PushProtocol(rawValue: name) else {
      throw UsageError("--extension must be nip-pl or buzz-push-v1, got '\(name)'")
    }
    return [generation]
  }

  private static func appProfile(_ reader: ArgumentReader) throws -> PushAppProfile? {
    switch (reader.value("app-profile"), reader.value("transport")) {
    case (nil, nil):
      return nil
    case (let id?, let transport?):
      guard !id.isEmpty else { throw UsageError("--app-profile must not be empty") }
      try checkTransport(transport)
      return PushAppProfile(id: id, transport: transport)
    case (nil, _?):
      throw UsageError("--transport needs --app-profile")
    case (_?, nil):
      throw UsageError("--app-profile needs --transport")
    }
  }

  private static func isURL(_ input: String) -> Bool {
    let lowered = input.lowercased()
    return ["http://", "https://", "ws://", "wss://"].contains { lowered.hasPrefix($0) }
  }

  /// The bytes of FILE or standard input, at most `maxInputBytes`; nil (after a message on
  /// standard error) when the input cannot be read or is larger.
  private static func readInput(_ input: String) -> [UInt8]? {
    do {
      return try readDocument(input)
    } catch {
      CLIOutput.error("nostr-push descriptor: \(error.message)")
      return nil
    }
  }

  /// The bytes of a NIP-11 document in FILE or standard input (`-`), at most `maxInputBytes`;
  /// `lease` reads its `--descriptor` through it too.
  static func readDocument(_ input: String) throws(InputError) -> [UInt8] {
    let handle: FileHandle
    if input == "-" {
      handle = FileHandle.standardInput
    } else {
      let attributes = try? FileManager.default.attributesOfItem(atPath: input)
      if let size = attributes?[.size] as? NSNumber, size.int64Value > Int64(maxInputBytes) {
        throw InputError(message: "\(input) is larger than \(maxInputBytes) bytes; refused")
      }
      guard let file = FileHandle(forReadingAtPath: input) else {
        throw InputError(message: "cannot read \(input)")
      }
      handle = file
    }
    defer { if input != "-" { try? handle.close() } }
    var bytes: [UInt8] = []
    while true {
      let chunk: Data?
      do {
        chunk = try handle.read(upToCount: 64 * 1024)
      } catch {
        throw InputError(message: "cannot read \(input): \(error)")
      }
      guard let chunk, !chunk.isEmpty else { return bytes }
      guard bytes.count + chunk.count <= maxInputBytes else {
        throw InputError(message: "input is larger than \(maxInputBytes) bytes; refused")
      }
      bytes.append(contentsOf: chunk)
    }
  }
}
