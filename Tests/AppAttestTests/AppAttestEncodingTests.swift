import AppAttest
import Foundation
import NostrEvent
import NostrPushTestSupport
import Testing

/// `AppAttestBase64` reads both alphabets, padded or not, and one spelling only;
/// `AppAttestPublicKey` turns a point into PEM and back.
@Suite struct AppAttestEncodingTests {
  @Test func base64AndBase64URLDecodeToTheSameBytesAsFoundation() {
    var random = SystemRandomNumberGenerator()
    for count in 0..<70 {
      let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
      let standard = Data(bytes).base64EncodedString()
      let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      let unpadded = url.replacingOccurrences(of: "=", with: "")
      #expect(AppAttestBase64.decode(standard) == bytes)
      #expect(AppAttestBase64.decode(url) == bytes)
      #expect(AppAttestBase64.decode(unpadded) == bytes)
      #expect(AppAttestBase64.encoded(bytes) == standard)
      #expect(AppAttestBase64.urlEncoded(bytes) == unpadded)
    }
  }

  @Test func malformedBase64IsRefused() {
    #expect(AppAttestBase64.decode("+/8=") == [0xFB, 0xFF])
    #expect(AppAttestBase64.decode("-_8") == [0xFB, 0xFF])
    #expect(AppAttestBase64.decode("+/9=") == nil)  // unused bits not zero
    #expect(AppAttestBase64.decode("A") == nil)  // no byte string is one symbol long
    #expect(AppAttestBase64.decode("AA=") == nil)  // half a padding
    #expect(AppAttestBase64.decode("AA===") == nil)
    #expect(AppAttestBase64.decode("AAAA=") == nil)
    #expect(AppAttestBase64.decode("A=AA") == nil)
    #expect(AppAttestBase64.decode("AA AA") == nil)
    #expect(AppAttestBase64.decode("AA*A") == nil)
    #expect(AppAttestBase64.decode("") == [])
  }

  @Test func aPointRoundTripsThroughPEMAndOpenSSLReadsIt() async throws {
    // The public key of the uebelack assertion vector, as its PEM states it.
    let vector = try #require(AppAttestVector.named("uebelack-assertion"))
    let point = try #require(vector.publicKey)
    let pem = AppAttestPublicKey.pem(point)
    #expect(try AppAttestPublicKey.point(pem: Array(pem.utf8)) == point)
    #expect(NostrSHA256.hash(point) == vector.keyID)
    // openssl (independent of this code) reads the PEM and prints the same point.
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("pem-\(UUID().uuidString).pem")
    try Data(pem.utf8).write(to: path)
    defer { try? FileManager.default.removeItem(at: path) }
    let der = try await SyntheticAppAttest.openssl(["pkey", "-pubin", "-in", path.path, "-outform", "DER"])
      .stdout
    #expect(Array(der.suffix(65)) == point)
    #expect(Array(der) == AppAttestPublicKey.der(point))
  }

  @Test func otherKeysAndBrokenPEMAreRefused() {
    func code(_ text: String) -> ErrorCode<AppAttestErrorDomain>? {
      do {
        _ = try AppAttestPublicKey.point(pem: Array(text.utf8))
        return nil
      } catch { return error.code }
    }
    let point = [0x04] + [UInt8](repeating: 7, count: 64)
    #expect(code("junk\n" + AppAttestPublicKey.pem(point) + "trailer") == nil)
    #expect(code("") == .invalidPublicKey)
    #expect(code("-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----\n") == .invalidPublicKey)
    // A compressed point behind the same header length is not read as a point.
    let compressed = AppAttestPublicKey.pem([0x02] + [UInt8](repeating: 7, count: 64))
    #expect(code(compressed) == .invalidPublicKey)
    // Another curve's OID in the header (the last byte of prime256v1's changed) is refused.
    var other = AppAttestPublicKey.der(point)
    other[22] = 0x08
    let otherPEM = "-----BEGIN PUBLIC KEY-----\n\(AppAttestBase64.encoded(other))\n-----END PUBLIC KEY-----\n"
    #expect(code(otherPEM) == .invalidPublicKey)
  }
}
