import Foundation
import NIP44
import NostrEvent
import NostrPushCore

/// The keys one gateway key file derives: `grant` (seals and opens `g1.` grants), `token` (seals
/// device tokens at rest), `fingerprint` (the HMAC key of a device token's fingerprint), and the
/// key id `kid` that names the file in every grant and sealed token.
///
/// The file holds 32 random bytes as 64 hex digits (surrounding white space ignored). The keys
/// are HKDF-SHA256 (RFC 5869) of those bytes with the salt ``hkdfSalt`` and the infos `grant`,
/// `token`, `fingerprint` and `kid`; the key id is the first 4 bytes of the last, in hex. The file
/// bytes themselves are wiped once derived.
public struct PushGatewaySealingKey: Sendable {
  /// The HKDF salt: fixes these derivations to this use.
  public static let hkdfSalt = Array("nostr-push-gateway/v1".utf8)
  /// The largest key file read (a 64-digit line with room for white space).
  public static let maxFileBytes = 1024

  /// The key id: 8 lower-case hex digits, public (it is written in every grant).
  public let kid: String
  let grant: NIP44.ConversationKey
  let token: NIP44.ConversationKey
  let fingerprint: [UInt8]

  /// The keys of a key file's text; `invalid_key_file` unless it is 64 hex digits.
  public init(keyFileText text: String) throws(PushGatewayError) {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard trimmed.utf8.count == 64, var secret = Hex.decode(trimmed) else {
      throw PushGatewayError(code: .invalidKeyFile, message: "not 32 bytes written as 64 hex digits")
    }
    defer { SystemRandom.wipe(&secret) }
    try self.init(secret: secret)
  }

  /// The keys of a key file's 32 bytes (a configuration's key material); `invalid_key_file` for
  /// another length.
  public init(secret: [UInt8]) throws(PushGatewayError) {
    guard secret.count == 32 else {
      throw PushGatewayError(code: .invalidKeyFile, message: "not 32 bytes")
    }
    var prk = [UInt8](repeating: 0, count: 32)
    defer { SystemRandom.wipe(&prk) }
    Self.hkdfSalt.withUnsafeBytes { salt in
      secret.withUnsafeBytes { ikm in
        prk.withUnsafeMutableBytes { HKDF.extract(salt: salt, ikm: ikm, into: $0) }
      }
    }
    func expand(_ info: String, count: Int = 32) -> [UInt8] {
      var output = [UInt8](repeating: 0, count: count)
      prk.withUnsafeBytes { prk in
        Array(info.utf8).withUnsafeBytes { info in
          output.withUnsafeMutableBytes { HKDF.expand(prk: prk, info: info, into: $0) }
        }
      }
      return output
    }
    var grantBytes = expand("grant")
    var tokenBytes = expand("token")
    defer {
      SystemRandom.wipe(&grantBytes)
      SystemRandom.wipe(&tokenBytes)
    }
    do {
      grant = try NIP44.ConversationKey(bytes: grantBytes)
      token = try NIP44.ConversationKey(bytes: tokenBytes)
    } catch {
      throw PushGatewayError(code: .invalidKeyFile, message: "key derivation: \(error.code)")
    }
    fingerprint = expand("fingerprint")
    kid = Hex.encode(expand("kid", count: 4))
  }

  /// The keys of the key file at `path` (read up to ``maxFileBytes``); `invalid_key_file` (the
  /// path named) when it cannot be read or does not hold 64 hex digits. File modes are the
  /// caller's to check.
  public init(contentsOf path: String) throws(PushGatewayError) {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw PushGatewayError(code: .invalidKeyFile, field: path, message: "cannot read the key file")
    }
    defer { try? handle.close() }
    guard var data = (try? handle.read(upToCount: Self.maxFileBytes + 1)) ?? nil,
      data.count <= Self.maxFileBytes
    else {
      throw PushGatewayError(
        code: .invalidKeyFile, field: path, message: "empty or over \(Self.maxFileBytes) bytes")
    }
    defer { data.resetBytes(in: 0..<data.count) }
    do {
      try self.init(keyFileText: String(decoding: data, as: UTF8.self))
    } catch {
      throw PushGatewayError(code: .invalidKeyFile, field: path, message: error.message)
    }
  }

  /// Makes the text of a new key file: 32 bytes from the system's random source, in hex.
  public static func generateKeyFileText() -> String {
    var bytes = SystemRandom.bytes(32)
    defer { SystemRandom.wipe(&bytes) }
    return Hex.encode(bytes) + "\n"
  }

  /// HMAC-SHA256(`fingerprint`, `appProfile` ‖ 0x00 ‖ `deviceToken`) in hex: the device token's
  /// fingerprint, the same for the same (profile, token) under this key.
  func fingerprint(appProfile: String, deviceToken: String) -> String {
    let message = Array(appProfile.utf8) + [0] + Array(deviceToken.utf8)
    return Hex.encode(HMACSHA256.tag(key: fingerprint, message: message))
  }
}

/// The gateway's sealing keys: the current key file, which seals, and the previous ones, which
/// only open (grants and tokens sealed before the current file was put in place).
public struct PushGatewayKeys: Sendable {
  /// The most previous key files kept.
  public static let maxPreviousKeys = 8

  /// The key that seals.
  public let current: PushGatewaySealingKey
  /// Keys that open old grants and tokens, never seal.
  public let previous: [PushGatewaySealingKey]

  /// The keys; `invalid_key_file` when two files derive one key id (the same file twice) or
  /// more than ``maxPreviousKeys`` previous files are given.
  public init(current: PushGatewaySealingKey, previous: [PushGatewaySealingKey] = [])
    throws(PushGatewayError)
  {
    guard previous.count <= Self.maxPreviousKeys else {
      throw PushGatewayError(
        code: .invalidKeyFile, field: "previous_key_files", message: "more than \(Self.maxPreviousKeys)")
    }
    let kids = [current.kid] + previous.map(\.kid)
    guard Set(kids).count == kids.count else {
      throw PushGatewayError(
        code: .invalidKeyFile, field: "previous_key_files", message: "a key file is given twice")
    }
    self.current = current
    self.previous = previous
  }

  /// Every key, the current one first.
  var all: [PushGatewaySealingKey] { [current] + previous }

  /// The key named `kid`, nil when none is.
  func key(kid: String) -> PushGatewaySealingKey? {
    all.first { $0.kid == kid }
  }

  /// The device token's fingerprint under every key, the current one first: a token registered
  /// before a key change is still found.
  func fingerprints(appProfile: String, deviceToken: String) -> [String] {
    all.map { $0.fingerprint(appProfile: appProfile, deviceToken: deviceToken) }
  }
}
