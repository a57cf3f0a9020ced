import AppAttest
import Foundation
import NostrEvent
import NostrJSON
import NostrPushCore

/// `nostr-push attest`: verifies an App Attest attestation or assertion as the gateway does
/// (see `Docs/CommandLine.md`).
///
/// The verifier's verdict is the output, exit 0 either way: `{"valid":true,…}` or
/// `{"valid":false,"step":"<code>"}` where the code names the first failing check
/// (`AppAttestError`'s codes: `nonce_mismatch`, `certificate_not_valid_at_time`, …). Inputs that
/// cannot be read (a missing file, a value that is not base64, an invalid app id or root) print
/// `{"error","message"}` and exit 1; a missing or unknown flag, or an `--environment` or
/// `--previous-counter` out of range, is a usage error (exit 2).
///
/// Decisions: `--attestation` and `--assertion` files hold base64 or base64url text (whitespace
/// ignored) or, when the text is not base64, the raw CBOR; `public_key` is printed as a PEM
/// `PUBLIC KEY`, the form `attest assert --public-key` reads back; `--client-data FILE` is the
/// client data's exact bytes. Linux only, like the verifier.
struct AttestCommand: CLICommand {
  static let name = "attest"
  static let summary = "App Attest: verify an attestation or an assertion"
  static let usage = """
    usage: nostr-push attest verify --attestation FILE --key-id B64 (--client-data FILE | --client-data-hash B64)
                                    --app-id TEAM.BUNDLE --environment development|production --at ISO8601 [--root FILE]
           nostr-push attest assert --assertion FILE --public-key PEMFILE --client-data FILE --app-id TEAM.BUNDLE
                                    --previous-counter N

    verify  checks an attestation at the time --at (ISO 8601, e.g. 2024-02-04T20:27:06Z) against
            --root (PEM or DER; Apple's App Attestation Root CA by default) and prints
            {"valid":true,"public_key":"<PEM>","receipt_bytes":n}.
    assert  checks an assertion by the key in --public-key (PEM) and prints
            {"valid":true,"counter":n} when its counter is above --previous-counter (0…4294967295).
    A failed check prints {"valid":false,"step":"<code>"}, exit 0 either way. Files and B64 values
    are base64 or base64url; an unreadable input prints {"error":"<code>","message":"<text>"}, exit 1.
    """

  /// The largest input file read (attestations are about 5 KiB; the CBOR reader's own cap is 64 KiB).
  static let maxFileBytes = 256 * 1024

  static func run(_ arguments: [String]) async throws -> Int32 {
    guard let subcommand = arguments.first else { throw UsageError("missing subcommand: verify or assert") }
    let rest = Array(arguments.dropFirst())
    switch subcommand {
    case "verify":
      let reader = try ArgumentReader(
        rest,
        valueFlags: [
          "attestation", "key-id", "client-data", "client-data-hash", "app-id", "environment", "at", "root",
        ])
      _ = try reader.positionals(atMost: 0)
      return try verify(reader)
    case "assert":
      let reader = try ArgumentReader(
        rest, valueFlags: ["assertion", "public-key", "client-data", "app-id", "previous-counter"])
      _ = try reader.positionals(atMost: 0)
      return try assert(reader)
    default: throw UsageError("unknown subcommand '\(subcommand)'")
    }
  }

  #if os(Linux)
  private static func verify(_ reader: ArgumentReader) throws -> Int32 {
    let attestationPath = try reader.required("attestation")
    let keyIDText = try reader.required("key-id")
    let clientDataPath = reader.value("client-data")
    let clientDataHashText = reader.value("client-data-hash")
    guard (clientDataPath == nil) != (clientDataHashText == nil) else {
      throw UsageError("give exactly one of --client-data and --client-data-hash")
    }
    let appIDText = try reader.required("app-id")
    let environmentText = try reader.required("environment")
    guard let environment = AppAttestEnvironment(rawValue: environmentText) else {
      throw UsageError("--environment must be development or production, got '\(environmentText)'")
    }
    let atText = try reader.required("at")
    do throws(CommandFailure) {
      let attestation = try object(file: attestationPath)
      let keyID = try base64(keyIDText, flag: "key-id")
      let clientDataHash: [UInt8]
      if let clientDataPath {
        clientDataHash = NostrSHA256.hash(try file(clientDataPath))
      } else {
        clientDataHash = try base64(clientDataHashText ?? "", flag: "client-data-hash")
      }
      guard let time = unixTime(atText) else {
        throw CommandFailure("invalid_time", "--at is not an ISO 8601 date and time: '\(atText)'")
      }
      let appID = try CommandFailure.reporting { () throws(AppAttestError) in try AppAttestAppID(appIDText) }
      var root: [UInt8]? = nil
      if let path = reader.value("root") { root = try file(path) }
      let anchor = try CommandFailure.reporting { () throws(AppAttestError) in
        if let root { return try AppAttestTrustAnchor(certificate: root) }
        return try AppAttestTrustAnchor.apple()
      }
      let verifier = AppAttestVerifier(appID: appID, environment: environment, trustAnchor: anchor)
      do throws(AppAttestError) {
        let key = try verifier.verifyAttestation(
          attestation, keyID: keyID, clientDataHash: clientDataHash, at: time)
        print([
          "valid": .bool(true), "public_key": .string(AppAttestPublicKey.pem(key.publicKey)),
          "receipt_bytes": .integer(Int64(key.receipt.count)),
        ])
      } catch {
        print(["valid": .bool(false), "step": .string(error.code.description)])
      }
      return ExitCode.success
    } catch {
      return error.print()
    }
  }

  private static func assert(_ reader: ArgumentReader) throws -> Int32 {
    let assertionPath = try reader.required("assertion")
    let keyPath = try reader.required("public-key")
    let clientDataPath = try reader.required("client-data")
    let appIDText = try reader.required("app-id")
    let counterText = try reader.required("previous-counter")
    guard let previous = UInt32(counterText) else {
      throw UsageError("--previous-counter must be an integer from 0 to 4294967295, got '\(counterText)'")
    }
    do throws(CommandFailure) {
      let assertion = try object(file: assertionPath)
      let pem = try file(keyPath)
      let publicKey = try CommandFailure.reporting { () throws(AppAttestError) in
        try AppAttestPublicKey.point(pem: pem)
      }
      let clientData = try file(clientDataPath)
      let appID = try CommandFailure.reporting { () throws(AppAttestError) in try AppAttestAppID(appIDText) }
      let anchor = try CommandFailure.reporting { () throws(AppAttestError) in
        try AppAttestTrustAnchor.apple()
      }
      // An assertion carries no aaguid: the environment is not read.
      let verifier = AppAttestVerifier(appID: appID, environment: .production, trustAnchor: anchor)
      do throws(AppAttestError) {
        let counter = try verifier.verifyAssertion(
          assertion, clientData: clientData, publicKey: publicKey, previousCounter: previous)
        print(["valid": .bool(true), "counter": .integer(Int64(counter))])
      } catch {
        print(["valid": .bool(false), "step": .string(error.code.description)])
      }
      return ExitCode.success
    } catch {
      return error.print()
    }
  }
  #else
  private static func verify(_ reader: ArgumentReader) throws -> Int32 {
    CommandFailure("unsupported", "attest needs libcrypto (Linux)").print()
  }

  private static func assert(_ reader: ArgumentReader) throws -> Int32 {
    CommandFailure("unsupported", "attest needs libcrypto (Linux)").print()
  }
  #endif

  /// The bytes of the file at `path` (at most `maxFileBytes`); `unreadable_file` otherwise.
  private static func file(_ path: String) throws(CommandFailure) -> [UInt8] {
    do {
      let descriptor = try CommandInput.open(path)
      defer { if descriptor != STDIN_FILENO { close(descriptor) } }
      return try CommandInput.readWhole(descriptor, limit: maxFileBytes)
    } catch {
      throw CommandFailure("unreadable_file", error.message)
    }
  }

  /// An attestation or assertion file: base64 or base64url text, else the raw CBOR.
  private static func object(file path: String) throws(CommandFailure) -> [UInt8] {
    let bytes = try file(path)
    let text = String(decoding: bytes.filter { !Self.isWhitespace($0) }, as: UTF8.self)
    if !text.isEmpty, let decoded = AppAttestBase64.decode(text) { return decoded }
    return bytes
  }

  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  /// A base64 or base64url flag value; `invalid_base64` naming the flag otherwise.
  private static func base64(_ text: String, flag: String) throws(CommandFailure) -> [UInt8] {
    guard let bytes = AppAttestBase64.decode(text) else {
      throw CommandFailure("invalid_base64", "--\(flag) is not base64 or base64url")
    }
    return bytes
  }

  /// Unix seconds of an ISO 8601 date and time, with or without fractional seconds.
  private static func unixTime(_ text: String) -> Int64? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970.rounded(.down)) }
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text).map { Int64($0.timeIntervalSince1970) }
  }

  private static func print(_ members: KeyValuePairs<String, JSONValue>) {
    CLIOutput.line(bytes: JSONWriter.bytes(.object(JSONObject(members))))
  }
}
