import Foundation
import NostrPushTestSupport
import Testing

/// One vector of `Fixtures/vectors/app-attest/vectors.json` (see `Fixtures/vectors/SOURCE.md`),
/// decoded.
struct AppAttestVector: Sendable, CustomTestStringConvertible {
  var id: String
  var isAttestation: Bool
  var environment: String
  var appID: String
  var keyID: [UInt8]
  /// The attestation or assertion CBOR.
  var object: [UInt8]
  var clientData: [UInt8]
  /// The client data hash an attestation is verified with (per `client_data_hash_mode`).
  var clientDataHash: [UInt8]?
  /// Unix seconds inside the leaf's validity (attestations).
  var verificationTime: Int64?
  var attestationRef: String?
  /// The uncompressed public key the vector states, when it states one.
  var publicKey: [UInt8]?
  var previousCounter: UInt32?
  var expectedCounter: UInt32?

  var testDescription: String { id }

  static let folder = PackageRoot.vectors.appendingPathComponent("app-attest")

  /// Every vector; empty when the file cannot be read (a test checks the count).
  static let all: [AppAttestVector] = (try? load()) ?? []
  static var attestations: [AppAttestVector] { all.filter(\.isAttestation) }
  static var assertions: [AppAttestVector] { all.filter { !$0.isAttestation } }
  static func named(_ id: String) -> AppAttestVector? { all.first { $0.id == id } }

  /// Standard or URL-safe base64, padded or not.
  static func base64(_ text: String) -> [UInt8]? {
    var normalized = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while normalized.count % 4 != 0 { normalized += "=" }
    return Data(base64Encoded: normalized).map { Array($0) }
  }

  static func hex(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    return stride(from: 0, to: digits.count, by: 2).compactMap {
      UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)
    }
  }

  static func unixTime(_ text: String) -> Int64? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970) }
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text).map { Int64($0.timeIntervalSince1970) }
  }

  struct Malformed: Error {
    var id: String
    var field: String
  }

  static func load() throws -> [AppAttestVector] {
    let data = try Data(contentsOf: folder.appendingPathComponent("vectors.json"))
    guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
      let vectors = root["vectors"] as? [[String: Any]]
    else { throw Malformed(id: "", field: "vectors") }
    return try vectors.map { fields in
      let id = fields["id"] as? String ?? ""
      func text(_ key: String) throws -> String {
        guard let value = fields[key] as? String else { throw Malformed(id: id, field: key) }
        return value
      }
      func bytes(_ key: String) throws -> [UInt8] {
        guard let value = base64(try text(key)) else { throw Malformed(id: id, field: key) }
        return value
      }
      let isAttestation = try text("kind") == "attestation"
      let clientData = try bytes("client_data_b64")
      var clientDataHash: [UInt8]? = nil
      if isAttestation {
        clientDataHash =
          try text("client_data_hash_mode") == "raw" ? try bytes("client_data_hash_b64") : nil
      }
      var publicKey: [UInt8]? = nil
      if let pem = fields["public_key_pem"] as? String {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        publicKey = base64(body).map { Array($0.suffix(65)) }
      } else if let hexKey = fields["public_key_uncompressed_hex"] as? String {
        publicKey = hex(hexKey)
      }
      return AppAttestVector(
        id: id, isAttestation: isAttestation, environment: try text("environment"),
        appID: try text("team_id") + "." + (try text("bundle_id")), keyID: try bytes("key_id_b64"),
        object: try bytes(isAttestation ? "attestation_b64" : "assertion_b64"), clientData: clientData,
        clientDataHash: clientDataHash,
        verificationTime: (fields["verification_time"] as? String).flatMap(unixTime),
        attestationRef: fields["attestation_ref"] as? String, publicKey: publicKey,
        previousCounter: (fields["previous_counter"] as? Int).map(UInt32.init),
        expectedCounter: (fields["expected_counter"] as? Int).map(UInt32.init))
    }
  }
}
