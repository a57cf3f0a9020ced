import Foundation
import PushGateway
import Testing

@Suite struct APNsSigningKeyTests {
  @Test func signsES256ThatOpenSSLVerifies() async throws {
    let tool = try OpenSSLTool.make()
    defer { tool.remove() }
    let key = try APNsSigningKey(pem: try await tool.ecKey("AuthKey.p8"))
    let message = Array("header.claims".utf8)
    let signature = try key.sign(message)
    #expect(signature.count == 64)
    #expect(try await tool.verifiesES256(keyName: "AuthKey.p8", message: message, signature: signature))
    // The same signature over other bytes does not verify: the check can fail.
    #expect(
      try await !tool.verifiesES256(keyName: "AuthKey.p8", message: Array("other".utf8), signature: signature)
    )
  }

  /// A generated key is a P-256 PKCS#8 key: OpenSSL reads it, derives the same public point,
  /// and verifies what it signs.
  @Test func generatesAKeyWhosePublicHalfAndSignaturesOpenSSLAgreesWith() async throws {
    let tool = try OpenSSLTool.make()
    defer { tool.remove() }
    let pem = try APNsSigningKey.generatePEM()
    try Data(pem).write(to: URL(fileURLWithPath: tool.path("generated.p8")))
    let key = try APNsSigningKey(pem: pem)
    try await tool.run([
      "pkey", "-in", tool.path("generated.p8"), "-pubout", "-outform", "DER", "-out", tool.path("pub.der"),
    ])
    let der = Array(try Data(contentsOf: URL(fileURLWithPath: tool.path("pub.der"))))
    #expect(der.count == 91)
    #expect(try key.publicKey() == Array(der.suffix(65)))
    let message = Array("header.claims".utf8)
    #expect(
      try await tool.verifiesES256(
        keyName: "generated.p8", message: message, signature: try key.sign(message)))
    // Two generations are two keys.
    #expect(try APNsSigningKey(pem: try APNsSigningKey.generatePEM()).publicKey() != key.publicKey())
  }

  @Test func refusesAKeyOnAnotherCurve() async throws {
    let tool = try OpenSSLTool.make()
    defer { tool.remove() }
    let pem = try await tool.ecKey("p384.p8", curve: "P-384")
    #expect(throws: PushGatewayError(code: .invalidSigningKey, message: "")) { try APNsSigningKey(pem: pem) }
  }

  @Test func refusesAKeyOfAnotherAlgorithm() async throws {
    let tool = try OpenSSLTool.make()
    defer { tool.remove() }
    try await tool.run(["genpkey", "-algorithm", "ED25519", "-out", tool.path("ed.p8")])
    let pem = Array(try Data(contentsOf: URL(fileURLWithPath: tool.path("ed.p8"))))
    #expect(throws: PushGatewayError(code: .invalidSigningKey, message: "")) { try APNsSigningKey(pem: pem) }
  }

  @Test(arguments: [
    "", "not a key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n",
  ])
  func refusesTextThatIsNotAPKCS8Key(_ text: String) {
    #expect(throws: PushGatewayError(code: .invalidSigningKey, message: "")) {
      try APNsSigningKey(pem: Array(text.utf8))
    }
  }
}
