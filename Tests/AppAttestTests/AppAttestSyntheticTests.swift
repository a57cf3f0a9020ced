#if os(Linux)
import AppAttest
import Foundation
import NostrEvent
import NostrPushTestSupport
import NostrPushTesting
import Testing

/// Each rule of an attestation and an assertion, broken alone on material made per test run
/// (`SyntheticAppAttest`), fails at its own step; the same material unbroken verifies.
@Suite struct AppAttestSyntheticTests {
  let appID = SyntheticAppAttest.Attestation().appID
  let clientDataHash = SyntheticAppAttest.Attestation().clientDataHash
  var now: Int64 { Int64(Date().timeIntervalSince1970) }

  func verifier(_ material: SyntheticAppAttest, environment: AppAttestEnvironment = .development) throws
    -> AppAttestVerifier
  {
    AppAttestVerifier(
      appID: try AppAttestAppID(appID), environment: environment,
      trustAnchor: try AppAttestTrustAnchor(certificate: material.rootPEM))
  }

  /// The code `verifyAttestation` throws for `made`, nil when it verifies.
  func failure(
    _ verifier: AppAttestVerifier, _ made: SyntheticAppAttest.Made, keyID: [UInt8]? = nil,
    at time: Int64? = nil
  ) -> ErrorCode<AppAttestErrorDomain>? {
    do {
      _ = try verifier.verifyAttestation(
        made.object, keyID: keyID ?? made.keyID, clientDataHash: clientDataHash, at: time ?? now)
      return nil
    } catch { return error.code }
  }

  @Test func aWellFormedAttestationVerifiesAndYieldsItsKeyAndReceipt() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    let made = try await material.make(.init())
    let key = try verifier(material).verifyAttestation(
      made.object, keyID: made.keyID, clientDataHash: clientDataHash, at: now)
    #expect(key.publicKey == made.publicKey)
    #expect(key.keyID == made.keyID)
    #expect(key.receipt == made.receipt)
    #expect(key.counter == 0)
    // The production verifier refuses the development aaguid, and accepts the production one.
    #expect(failure(try verifier(material, environment: .production), made) == .aaguidMismatch)
    var production = SyntheticAppAttest.Attestation()
    production.aaguid = AppAttestEnvironment.production.aaguid
    #expect(
      failure(try verifier(material, environment: .production), try await material.make(production)) == nil)
  }

  @Test func aChainUnderAnotherRootFailsAtTheChain() async throws {
    let material = try await SyntheticAppAttest.make()
    let other = try await SyntheticAppAttest.make()
    defer {
      material.remove()
      other.remove()
    }
    let made = try await material.make(.init())
    #expect(failure(try verifier(other), made) == .untrustedCertificateChain)
    #expect(failure(try verifier(material), made) == nil)
  }

  @Test func anExpiredLeafFailsAtTheValidityTime() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    let made = try await material.make(.init())
    #expect(failure(try verifier(material), made, at: now + 2 * 86_400) == .certificateNotValidAtTime)
    #expect(failure(try verifier(material), made, at: now - 86_400) == .certificateNotValidAtTime)
    #expect(failure(try verifier(material), made, at: now + 3600) == nil)
  }

  @Test func aWrongNonceFailsAtTheNonce() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    var shape = SyntheticAppAttest.Attestation()
    shape.nonce = NostrSHA256.hash(Array("another nonce".utf8))
    #expect(failure(try verifier(material), try await material.make(shape)) == .nonceMismatch)
    // The right nonce with other client data fails the same way.
    let made = try await material.make(.init())
    #expect(
      throws: AppAttestError(code: .nonceMismatch, message: ""),
      performing: {
        try verifier(material).verifyAttestation(
          made.object, keyID: made.keyID, clientDataHash: NostrSHA256.hash([1]), at: now)
      })
  }

  @Test func aWrongAppIDFailsAtTheRPIDHash() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    var shape = SyntheticAppAttest.Attestation()
    shape.appID = "ABCDE12345.org.example.other"
    #expect(failure(try verifier(material), try await material.make(shape)) == .rpIDMismatch)
  }

  @Test func aWrongAAGUIDFailsAtTheEnvironment() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    var shape = SyntheticAppAttest.Attestation()
    shape.aaguid = Array("appattestdevelox".utf8)
    #expect(failure(try verifier(material), try await material.make(shape)) == .aaguidMismatch)
  }

  @Test func aCounterOtherThanZeroFailsAtTheCounter() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    var shape = SyntheticAppAttest.Attestation()
    shape.counter = 1
    #expect(failure(try verifier(material), try await material.make(shape)) == .counterNotZero)
  }

  @Test func aKeyIDThatIsNotTheLeafKeysHashFailsAtTheKeyID() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    let made = try await material.make(.init())
    #expect(failure(try verifier(material), made, keyID: NostrSHA256.hash([7])) == .keyIDMismatch)
  }

  @Test func aCredentialIDThatIsNotTheKeyIDFailsAtTheCredentialID() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    var shape = SyntheticAppAttest.Attestation()
    shape.credentialID = NostrSHA256.hash([7])
    #expect(failure(try verifier(material), try await material.make(shape)) == .credentialIDMismatch)
  }

  @Test func truncatedOrOversizedAttestationsFailAtTheCBOR() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    let made = try await material.make(.init())
    var truncated = made
    truncated.object.removeLast(10)
    #expect(failure(try verifier(material), truncated) == .cborTruncated)
    var oversized = made
    oversized.object = TestCBOR.map([
      ("fmt", TestCBOR.text("apple-appattest")),
      ("pad", TestCBOR.bytes([UInt8](repeating: 0, count: 64 * 1024))),
    ])
    #expect(failure(try verifier(material), oversized) == .cborTooLarge)
    var extended = made
    extended.object.append(0)
    #expect(failure(try verifier(material), extended) == .cborTrailingBytes)
  }

  @Test func assertionsRiseAndAReplayedOrLowerCounterFails() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    let made = try await material.make(.init())
    let verifier = try verifier(material)
    let key = try verifier.verifyAttestation(
      made.object, keyID: made.keyID, clientDataHash: clientDataHash, at: now)
    let clientData = Array("nostr-push.delegations.v1\n{}".utf8)
    let first = try await material.assertion(leafKey: made.leafKey, clientData: clientData, counter: 5)
    let counter = try verifier.verifyAssertion(
      first, clientData: clientData, publicKey: key.publicKey, previousCounter: key.counter)
    #expect(counter == 5)
    // The same assertion again (a replay), and a lower counter, against the stored 5.
    #expect(
      throws: AppAttestError(code: .counterNotIncreasing, message: ""),
      performing: {
        try verifier.verifyAssertion(
          first, clientData: clientData, publicKey: key.publicKey, previousCounter: counter)
      })
    let lower = try await material.assertion(leafKey: made.leafKey, clientData: clientData, counter: 4)
    #expect(
      throws: AppAttestError(code: .counterNotIncreasing, message: ""),
      performing: {
        try verifier.verifyAssertion(
          lower, clientData: clientData, publicKey: key.publicKey, previousCounter: counter)
      })
    let next = try await material.assertion(leafKey: made.leafKey, clientData: clientData, counter: 6)
    #expect(
      try verifier.verifyAssertion(
        next, clientData: clientData, publicKey: key.publicKey, previousCounter: counter)
        == 6)
  }

  @Test func aTruncatedOversizedOrMisshapenAssertionFailsAtItsFormat() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    let made = try await material.make(.init())
    let verifier = try verifier(material)
    let clientData = Array("the request".utf8)
    let assertion = try await material.assertion(leafKey: made.leafKey, clientData: clientData, counter: 1)
    func code(_ bytes: [UInt8]) -> ErrorCode<AppAttestErrorDomain>? {
      do {
        _ = try verifier.verifyAssertion(
          bytes, clientData: clientData, publicKey: made.publicKey, previousCounter: 0)
        return nil
      } catch { return error.code }
    }
    #expect(code(assertion) == nil)
    #expect(code(Array(assertion.dropLast())) == .cborTruncated)
    #expect(code(assertion + [0]) == .cborTrailingBytes)
    #expect(
      code(TestCBOR.map([("signature", TestCBOR.bytes([UInt8](repeating: 1, count: 70_000)))]))
        == .cborTooLarge)
    #expect(code(TestCBOR.map([("signature", TestCBOR.bytes([1]))])) == .invalidAssertionFormat)
    let shortAuth = TestCBOR.map([
      ("signature", TestCBOR.bytes([1])), ("authenticatorData", TestCBOR.bytes([1, 2])),
    ])
    #expect(code(shortAuth) == .invalidAuthenticatorData)
  }

  @Test func anAssertionSignedOverOtherDataOrByAnotherKeyFailsAtTheSignature() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    let made = try await material.make(.init())
    let verifier = try verifier(material)
    let clientData = Array("the request".utf8)
    let overOther = try await material.assertion(
      leafKey: made.leafKey, clientData: clientData, counter: 1,
      signedClientData: Array("another request".utf8))
    #expect(
      throws: AppAttestError(code: .invalidSignature, message: ""),
      performing: {
        try verifier.verifyAssertion(
          overOther, clientData: clientData, publicKey: made.publicKey, previousCounter: 0)
      })
    let otherKey = try await material.leafKey()
    let byOther = try await material.assertion(leafKey: otherKey.name, clientData: clientData, counter: 1)
    #expect(
      throws: AppAttestError(code: .invalidSignature, message: ""),
      performing: {
        try verifier.verifyAssertion(
          byOther, clientData: clientData, publicKey: made.publicKey, previousCounter: 0)
      })
    let forOtherApp = try await material.assertion(
      leafKey: made.leafKey, clientData: clientData, counter: 1, appID: "ABCDE12345.org.example.other")
    #expect(
      throws: AppAttestError(code: .rpIDMismatch, message: ""),
      performing: {
        try verifier.verifyAssertion(
          forOtherApp, clientData: clientData, publicKey: made.publicKey, previousCounter: 0)
      })
    #expect(
      throws: AppAttestError(code: .invalidPublicKey, message: ""),
      performing: {
        try verifier.verifyAssertion(
          overOther, clientData: clientData, publicKey: [0x04] + [UInt8](repeating: 1, count: 64),
          previousCounter: 0)
      })
  }
  @Test func aMissingOrMalformedNonceExtensionFailsAtTheExtension() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    var missing = SyntheticAppAttest.Attestation()
    missing.nonceExtension = []
    #expect(failure(try verifier(material), try await material.make(missing)) == .invalidNonceExtension)
    // An OCTET STRING where the SEQUENCE {[1] …} belongs.
    var malformed = SyntheticAppAttest.Attestation()
    malformed.nonceExtension = [0x04, 0x20] + [UInt8](repeating: 9, count: 32)
    #expect(failure(try verifier(material), try await material.make(malformed)) == .invalidNonceExtension)
  }

  /// Apple's documentation samples pass a raw challenge as the client data hash, and one sample
  /// carries bytes after the COSE key its flags do not announce: both are accepted.
  @Test func deviceQuirksAreAccepted() async throws {
    let material = try await SyntheticAppAttest.make()
    defer { material.remove() }
    var shape = SyntheticAppAttest.Attestation()
    shape.clientDataHash = Array("raw-challenge-16".utf8)
    shape.trailing = [0xA1, 0x61, 0x78, 0x01]
    let made = try await material.make(shape)
    let key = try verifier(material).verifyAttestation(
      made.object, keyID: made.keyID, clientDataHash: shape.clientDataHash, at: now)
    #expect(key.publicKey == made.publicKey)
    #expect(failure(try verifier(material), made) == .nonceMismatch)  // the default hash is not it
  }
}
#endif
