import Foundation
import NostrPushTestSupport

/// The `openssl` command line, an implementation independent of the code under test: makes keys
/// and checks ES256 signatures, each run in a temporary folder of the test's own.
struct OpenSSLTool {
  let directory: URL

  /// A tool working in a fresh temporary folder.
  static func make() throws -> OpenSSLTool {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "openssl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return OpenSSLTool(directory: directory)
  }

  func remove() { try? FileManager.default.removeItem(at: directory) }

  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// Runs `openssl arguments…` in the folder; its exit.
  @discardableResult
  func run(_ arguments: [String]) async throws -> ChildProcess.Exit {
    try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["openssl"] + arguments)
  }

  /// A PKCS#8 PEM private key on `curve` (`P-256`, `P-384`) written to `name`; its bytes.
  func ecKey(_ name: String, curve: String = "P-256") async throws -> [UInt8] {
    try await run([
      "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:\(curve)", "-out", path(name),
    ])
    return Array(try Data(contentsOf: URL(fileURLWithPath: path(name))))
  }

  /// The PEM public key of the private key in `keyName`.
  func publicKeyPEM(of keyName: String) async throws -> String {
    let exit = try await run(["pkey", "-in", path(keyName), "-pubout"])
    return exit.stdoutText
  }

  /// Whether `openssl dgst -sha256 -verify` accepts `signature` (JOSE `r‖s`) over `message` for
  /// the public half of the key in `keyName`.
  func verifiesES256(keyName: String, message: [UInt8], signature: [UInt8]) async throws -> Bool {
    let stem = UUID().uuidString
    try await run(["pkey", "-in", path(keyName), "-pubout", "-out", path(stem + ".pub")])
    try Data(message).write(to: URL(fileURLWithPath: path(stem + ".msg")))
    try Data(Self.der(jose: signature)).write(to: URL(fileURLWithPath: path(stem + ".sig")))
    let exit = try await run([
      "dgst", "-sha256", "-verify", path(stem + ".pub"), "-signature", path(stem + ".sig"),
      path(stem + ".msg"),
    ])
    return exit.status == 0 && exit.stdoutText.contains("Verified OK")
  }

  /// The DER `ECDSA-Sig-Value` (SEQUENCE of two INTEGERs) of a 64-byte JOSE signature.
  static func der(jose: [UInt8]) -> [UInt8] {
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
      var value = Array(bytes.drop { $0 == 0 })
      if value.isEmpty { value = [0] }
      if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
      return [0x02, UInt8(value.count)] + value
    }
    let body = integer(jose[0..<32]) + integer(jose[32..<64])
    return [0x30, UInt8(body.count)] + body
  }
}
