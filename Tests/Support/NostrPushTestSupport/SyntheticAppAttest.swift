import Foundation
import NostrEvent
import NostrPushTesting

/// Throwaway App Attest material made per test with the `openssl` command line (an implementation
/// independent of the code under test) in a temporary folder of the test's own: a root, an
/// intermediate, leaves carrying the nonce extension 1.2.840.113635.100.8.2, and assertions
/// signed with a leaf's key.
public struct SyntheticAppAttest: Sendable {
  public let directory: URL
  /// The root's PEM.
  public let rootPEM: [UInt8]
  /// The intermediate's DER.
  public let intermediateDER: [UInt8]

  /// The shape of one attestation, every field right unless a test changes it.
  public struct Attestation: Sendable {
    public var appID = "ABCDE12345.org.example.push"
    public var aaguid = Array("appattestdevelop".utf8)
    public var counter: UInt32 = 0
    /// The credential id in authData; nil = the key id.
    public var credentialID: [UInt8]? = nil
    /// The nonce the leaf carries; nil = SHA-256(authData ‖ clientDataHash).
    public var nonce: [UInt8]? = nil
    /// The leaf's nonce extension DER as made; nil = SEQUENCE {[1] OCTET STRING nonce}, [] = none.
    public var nonceExtension: [UInt8]? = nil
    /// Bytes after the COSE key in authData, which the flags (AT only) do not announce.
    public var trailing: [UInt8] = []
    /// The leaf's validity from now, in days.
    public var leafDays = 1
    public var clientDataHash = NostrSHA256.hash(Array("synthetic client data".utf8))

    /// Every field right.
    public init() {}
  }

  /// An attestation made by `make(_:)`, with the leaf's key (`leafKey`, in the folder) and id.
  public struct Made: Sendable {
    public var object: [UInt8]
    public var keyID: [UInt8]
    public var publicKey: [UInt8]
    public var leafKey: String
    public var receipt: [UInt8]
  }

  /// A fresh folder with a root and an intermediate (P-256, ten years from now).
  public static func make() async throws -> SyntheticAppAttest {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "app-attest-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let config = """
      [req]
      distinguished_name = dn
      prompt = no
      [dn]
      CN = unused
      [ca]
      basicConstraints = critical,CA:TRUE
      keyUsage = critical,keyCertSign,cRLSign
      subjectKeyIdentifier = hash
      authorityKeyIdentifier = keyid:always

      """
    try Data(config.utf8).write(to: directory.appendingPathComponent("ca.cnf"))
    let path = { (name: String) in directory.appendingPathComponent(name).path }
    try await openssl([
      "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path("root.key"),
    ])
    try await openssl([
      "req", "-x509", "-new", "-config", path("ca.cnf"), "-extensions", "ca", "-key", path("root.key"),
      "-subj", "/CN=Test App Attest Root", "-days", "3650", "-out", path("root.pem"),
    ])
    try await openssl([
      "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path("int.key"),
    ])
    try await openssl([
      "req", "-new", "-config", path("ca.cnf"), "-key", path("int.key"), "-subj", "/CN=Test App Attest CA 1",
      "-out", path("int.csr"),
    ])
    try await openssl([
      "x509", "-req", "-in", path("int.csr"), "-CA", path("root.pem"), "-CAkey", path("root.key"),
      "-set_serial", "2", "-days", "3650", "-extfile", path("ca.cnf"), "-extensions", "ca", "-out",
      path("int.pem"),
    ])
    try await openssl(["x509", "-in", path("int.pem"), "-outform", "DER", "-out", path("int.der")])
    return SyntheticAppAttest(
      directory: directory,
      rootPEM: Array(try Data(contentsOf: directory.appendingPathComponent("root.pem"))),
      intermediateDER: Array(try Data(contentsOf: directory.appendingPathComponent("int.der"))))
  }

  public func remove() { try? FileManager.default.removeItem(at: directory) }

  private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// Runs `openssl arguments…`; throws with its stderr when it fails.
  @discardableResult
  public static func openssl(_ arguments: [String]) async throws -> ChildProcess.Exit {
    let exit = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["openssl"] + arguments)
    guard exit.status == 0 else { throw OpenSSLFailure(arguments: arguments, stderr: exit.stderrText) }
    return exit
  }

  /// An `openssl` run that failed.
  public struct OpenSSLFailure: Error {
    public var arguments: [String]
    public var stderr: String
  }

  /// The authenticator data of an attestation: rpIdHash, flags (AT), counter, aaguid,
  /// credential id and a stand-in COSE key.
  public static func authData(
    appID: String, counter: UInt32, aaguid: [UInt8], credentialID: [UInt8], trailing: [UInt8] = []
  ) -> [UInt8] {
    NostrSHA256.hash(Array(appID.utf8)) + [0x40] + bigEndian(counter) + aaguid
      + [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xFF)] + credentialID
      + TestCBOR.map([("1", TestCBOR.header(0, 2))]) + trailing
  }

  public static func hexUpper(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02X", $0) }.joined()
  }

  public static func bigEndian(_ value: UInt32) -> [UInt8] {
    (0..<4).reversed().map { UInt8(value >> (8 * $0) & 0xFF) }
  }

  /// A new leaf key in the folder; its file name and uncompressed public point.
  public func leafKey() async throws -> (name: String, point: [UInt8]) {
    let name = "leaf-\(UUID().uuidString).key"
    try await Self.openssl([
      "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path(name),
    ])
    let spki = try await Self.openssl(["pkey", "-in", path(name), "-pubout", "-outform", "DER"]).stdout
    return (name, Array(spki.suffix(65)))
  }

  /// An attestation of `shape`, signed through the intermediate.
  public func make(_ shape: Attestation) async throws -> Made {
    let key = try await leafKey()
    let keyID = NostrSHA256.hash(key.point)
    let auth = Self.authData(
      appID: shape.appID, counter: shape.counter, aaguid: shape.aaguid,
      credentialID: shape.credentialID ?? keyID,
      trailing: shape.trailing)
    let nonce = shape.nonce ?? NostrSHA256.hash(auth + shape.clientDataHash)
    let extensionDER =
      shape.nonceExtension
      ?? [0x30, UInt8(nonce.count + 4), 0xA1, UInt8(nonce.count + 2), 0x04, UInt8(nonce.count)] + nonce
    let stem = UUID().uuidString
    let leafConfig = """
      [req]
      distinguished_name = dn
      prompt = no
      [dn]
      CN = unused
      [leaf]
      basicConstraints = critical,CA:FALSE
      keyUsage = critical,digitalSignature
      \(extensionDER.isEmpty ? "" : "1.2.840.113635.100.8.2 = DER:" + Self.hexUpper(extensionDER))

      """
    try Data(leafConfig.utf8).write(to: URL(fileURLWithPath: path(stem + ".cnf")))
    try await Self.openssl([
      "req", "-new", "-config", path(stem + ".cnf"), "-key", path(key.name), "-subj",
      "/CN=\(keyID.map { String(format: "%02x", $0) }.joined())", "-out", path(stem + ".csr"),
    ])
    try await Self.openssl([
      "x509", "-req", "-in", path(stem + ".csr"), "-CA", path("int.pem"), "-CAkey", path("int.key"),
      "-set_serial", "3", "-days", String(shape.leafDays), "-extfile", path(stem + ".cnf"), "-extensions",
      "leaf", "-outform", "DER", "-out", path(stem + ".der"),
    ])
    let leafDER = Array(try Data(contentsOf: URL(fileURLWithPath: path(stem + ".der"))))
    let receipt = Array("synthetic receipt \(stem)".utf8)
    let object = TestCBOR.map([
      ("fmt", TestCBOR.text("apple-appattest")),
      (
        "attStmt",
        TestCBOR.map([
          ("x5c", TestCBOR.array([TestCBOR.bytes(leafDER), TestCBOR.bytes(intermediateDER)])),
          ("receipt", TestCBOR.bytes(receipt)),
        ])
      ),
      ("authData", TestCBOR.bytes(auth)),
    ])
    return Made(object: object, keyID: keyID, publicKey: key.point, leafKey: key.name, receipt: receipt)
  }

  /// An assertion by the key `leafKey` over `signedClientData` (the nonce of `clientData` unless
  /// a test signs other data), with `counter` and `appID` in its authenticator data.
  public func assertion(
    leafKey: String, clientData: [UInt8], counter: UInt32, appID: String = Attestation().appID,
    signedClientData: [UInt8]? = nil
  ) async throws -> [UInt8] {
    let auth = NostrSHA256.hash(Array(appID.utf8)) + [0x00] + Self.bigEndian(counter)
    let nonce = NostrSHA256.hash(auth + NostrSHA256.hash(signedClientData ?? clientData))
    let stem = UUID().uuidString
    try Data(nonce).write(to: URL(fileURLWithPath: path(stem + ".nonce")))
    try await Self.openssl([
      "dgst", "-sha256", "-sign", path(leafKey), "-out", path(stem + ".sig"), path(stem + ".nonce"),
    ])
    let signature = Array(try Data(contentsOf: URL(fileURLWithPath: path(stem + ".sig"))))
    return TestCBOR.map([
      ("signature", TestCBOR.bytes(signature)), ("authenticatorData", TestCBOR.bytes(auth)),
    ])
  }
}
