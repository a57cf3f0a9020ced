import Foundation
import NIP44
import NostrEvent
import NostrJSON
import NostrPushCore

/// `nostr-push nip44`: derives NIP-44 v2 conversation keys and encrypts or decrypts payloads
/// (see `Docs/CommandLine.md`).
///
/// Inputs are checked in the spec's order — key file, public key (or conversation key), nonce,
/// standard input — and the first refusal is printed as `{"error":…,"message":…}` with exit 1.
struct Nip44Command: CLICommand {
  static let name = "nip44"
  static let summary = "NIP-44 v2: conversation key, encrypt or decrypt"
  static let usage = """
    usage: nostr-push nip44 conversation-key --secret-key-file FILE --pubkey HEX
           nostr-push nip44 encrypt (--secret-key-file FILE --pubkey HEX | --conversation-key HEX) [--nonce HEX]
           nostr-push nip44 decrypt (--secret-key-file FILE --pubkey HEX | --conversation-key HEX)

    conversation-key  prints {"conversation_key":"<hex>"}.
    encrypt           encrypts standard input's exact bytes (1 to 65 535, UTF-8) and prints
                      {"payload":"<base64>"}; a random nonce unless --nonce (64 hex) is given.
    decrypt           decrypts standard input (one trailing newline dropped) and prints
                      {"plaintext":"<text>"}.
    --secret-key-file holds 64 hex or nsec1…; --pubkey is the other party (64 hex, x-only).
    Refused input prints {"error":"<code>","message":"<text>"} and exits 1.
    """

  /// The most plaintext bytes read by `encrypt`: one more than NIP-44 allows, so that the extra
  /// byte marks the input as too long.
  static let maxPlaintextRead = NIP44.maxPlaintextBytes + 1
  /// The most payload bytes read by `decrypt`: the longest payload, its newline, and one more.
  static let maxPayloadRead = NIP44.maxPayloadCharacters + 2

  static func run(_ arguments: [String]) async throws -> Int32 {
    guard let subcommand = arguments.first else {
      throw UsageError("missing subcommand: conversation-key, encrypt or decrypt")
    }
    let rest = Array(arguments.dropFirst())
    let keyFlags: Set<String> = ["secret-key-file", "pubkey"]
    let reader: ArgumentReader
    switch subcommand {
    case "conversation-key": reader = try ArgumentReader(rest, valueFlags: keyFlags)
    case "encrypt":
      reader = try ArgumentReader(rest, valueFlags: keyFlags.union(["conversation-key", "nonce"]))
    case "decrypt": reader = try ArgumentReader(rest, valueFlags: keyFlags.union(["conversation-key"]))
    default: throw UsageError("unknown subcommand '\(subcommand)'")
    }
    _ = try reader.positionals(atMost: 0)
    let source = try KeySource(reader)
    do throws(NIP44Error) {
      let key = try source.conversationKey()
      switch subcommand {
      case "conversation-key":
        print(["conversation_key": .string(key.hex)])
      case "encrypt":
        print(["payload": .string(try encrypt(key: key, nonceHex: reader.value("nonce")))])
      default:
        print(["plaintext": .string(try decrypt(key: key))])
      }
      return ExitCode.success
    } catch {
      return CommandFailure(error).print()
    }
  }

  /// Where the conversation key comes from: a key pair, or the key itself.
  private enum KeySource {
    case pair(secretKeyFile: String, publicKey: String)
    case direct(hex: String)

    /// The source the flags name; a usage error for both forms, neither, or half a pair.
    init(_ reader: ArgumentReader) throws {
      let file = reader.value("secret-key-file")
      let publicKey = reader.value("pubkey")
      let direct = reader.value("conversation-key")
      switch (file, publicKey, direct) {
      case (let file?, let publicKey?, nil): self = .pair(secretKeyFile: file, publicKey: publicKey)
      case (nil, nil, let direct?): self = .direct(hex: direct)
      case (_, _, _?):
        throw UsageError("give --conversation-key or --secret-key-file with --pubkey, not both")
      case (nil, nil, nil):
        throw UsageError("--secret-key-file with --pubkey, or --conversation-key, is required")
      case (_?, nil, nil): throw UsageError("--secret-key-file needs --pubkey")
      case (nil, _?, nil): throw UsageError("--pubkey needs --secret-key-file")
      }
    }

    /// The key: the secret key file is read first, then the public key or the hex is checked.
    func conversationKey() throws(NIP44Error) -> NIP44.ConversationKey {
      switch self {
      case .pair(let file, let publicKey):
        let secretKey: SecretKey
        do {
          secretKey = try SecretKeyFile.read(file)
        } catch {
          throw NIP44Error(code: .invalidSecretKey, message: "\(error)")
        }
        return try NIP44.ConversationKey(secretKey: secretKey, publicKey: publicKey)
      case .direct(let hex):
        return try NIP44.ConversationKey(hex: hex)
      }
    }
  }

  private static func encrypt(key: NIP44.ConversationKey, nonceHex: String?) throws(NIP44Error) -> String {
    var nonce: [UInt8]? = nil
    if let nonceHex {
      guard let bytes = Hex.decode(nonceHex), bytes.count == NIP44.nonceBytes else {
        throw NIP44Error(code: .invalidNonce, message: "--nonce is not 64 hex characters")
      }
      nonce = bytes
    }
    let input: [UInt8]
    do {
      input = try CommandInput.readPrefix(STDIN_FILENO, limit: maxPlaintextRead)
    } catch {
      throw NIP44Error(code: .invalidPlaintextLength, message: "standard input could not be read: \(error)")
    }
    guard (NIP44.minPlaintextBytes...NIP44.maxPlaintextBytes).contains(input.count) else {
      let size = input.count > NIP44.maxPlaintextBytes ? "more than \(NIP44.maxPlaintextBytes)" : "0"
      throw NIP44Error(
        code: .invalidPlaintextLength,
        message: "the plaintext is \(size) bytes, not 1 to \(NIP44.maxPlaintextBytes)")
    }
    guard let plaintext = UTF8Text.decode(input) else {
      throw NIP44Error(code: .invalidUTF8, message: "the plaintext is not UTF-8")
    }
    if let nonce { return try NIP44.encrypt(plaintext, conversationKey: key, nonce: nonce) }
    return try NIP44.encrypt(plaintext, conversationKey: key)
  }

  private static func decrypt(key: NIP44.ConversationKey) throws(NIP44Error) -> String {
    var input: [UInt8]
    do {
      input = try CommandInput.readPrefix(STDIN_FILENO, limit: maxPayloadRead)
    } catch {
      throw NIP44Error(code: .invalidPayloadSize, message: "standard input could not be read: \(error)")
    }
    if input.last == UInt8(ascii: "\n") { input.removeLast() }
    return try input.withUnsafeBytes { payload in
      Result { () throws(NIP44Error) in try NIP44.decrypt(bytes: payload, conversationKey: key) }
    }.get()
  }

  private static func print(_ members: KeyValuePairs<String, JSONValue>) {
    CLIOutput.line(bytes: JSONWriter.bytes(.object(JSONObject(members))))
  }
}
