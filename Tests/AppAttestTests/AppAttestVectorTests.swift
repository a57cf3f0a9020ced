#if os(Linux)
import AppAttest
import Foundation
import NostrEvent
import NostrPushTestSupport
import Testing

/// The 20 real device captures of `Fixtures/vectors/app-attest/`: each verifies at its time, and
/// fails expired, for another app id, in another environment and with other client data.
@Suite struct AppAttestVectorTests {
  func verifier(_ vector: AppAttestVector, appID: String? = nil, environment: AppAttestEnvironment? = nil)
    throws
    -> AppAttestVerifier
  {
    AppAttestVerifier(
      appID: try AppAttestAppID(appID ?? vector.appID),
      environment: environment ?? AppAttestEnvironment(rawValue: vector.environment) ?? .development,
      trustAnchor: try AppAttestTrustAnchor.apple())
  }

  func clientDataHash(_ vector: AppAttestVector) -> [UInt8] {
    vector.clientDataHash ?? NostrSHA256.hash(vector.clientData)
  }

  /// The code `verifyAttestation` throws, nil when it verifies.
  func failure(
    _ verifier: AppAttestVerifier, _ vector: AppAttestVector, clientDataHash: [UInt8]? = nil,
    at time: Int64? = nil
  ) -> ErrorCode<AppAttestErrorDomain>? {
    do {
      _ = try verifier.verifyAttestation(
        vector.object, keyID: vector.keyID, clientDataHash: clientDataHash ?? self.clientDataHash(vector),
        at: time ?? vector.verificationTime ?? 0)
      return nil
    } catch { return error.code }
  }

  @Test func theFixtureHoldsTwentyVectorsAndApplesRoot() throws {
    #expect(AppAttestVector.all.count == 20)
    #expect(AppAttestVector.attestations.count == 11)
    let pem = try Data(
      contentsOf: AppAttestVector.folder.appendingPathComponent("apple-app-attestation-root-ca.pem"))
    let fixtureRoot = try AppAttestTrustAnchor(certificate: Array(pem))
    let embedded = try AppAttestTrustAnchor.apple()
    #expect(embedded.der == fixtureRoot.der)
    #expect(
      NostrSHA256.hash(embedded.der)
        == AppAttestVector.hex("1CB9823BA28BA6AD2D33A006941DE2AE4F513EF1D4E831B9F7E0FA7B6242C932"))
  }

  @Test(arguments: AppAttestVector.attestations)
  func anAttestationVerifiesAtItsTime(_ vector: AppAttestVector) throws {
    let time = try #require(vector.verificationTime)
    let key = try verifier(vector).verifyAttestation(
      vector.object, keyID: vector.keyID, clientDataHash: clientDataHash(vector), at: time)
    #expect(key.keyID == vector.keyID)
    #expect(NostrSHA256.hash(key.publicKey) == vector.keyID)
    if let stated = vector.publicKey { #expect(key.publicKey == stated) }
    #expect(!key.receipt.isEmpty)
    #expect(key.counter == 0)
  }

  /// The leaf's notAfter (Unix seconds), as `openssl x509` (independent of the code under test)
  /// reads it from `x5c[0]`.
  func leafNotAfter(_ vector: AppAttestVector) async throws -> Int64 {
    let leaf = try #require(
      try CBORReader.decode(vector.object)["attStmt"]?["x5c"]?.arrayItems?.first?.byteString)
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("leaf-\(UUID().uuidString).der")
    try Data(leaf).write(to: path)
    defer { try? FileManager.default.removeItem(at: path) }
    let exit = try await SyntheticAppAttest.openssl([
      "x509", "-inform", "DER", "-in", path.path, "-noout", "-enddate", "-dateopt", "iso_8601",
    ])
    // notAfter=2020-11-24 22:13:00Z
    let text = String(decoding: exit.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss'Z'"
    let date = try #require(formatter.date(from: String(text.dropFirst("notAfter=".count))), "\(text)")
    return Int64(date.timeIntervalSince1970)
  }

  @Test(arguments: AppAttestVector.attestations)
  func anAttestationFailsExpiredOrForAnotherAppEnvironmentOrClientData(_ vector: AppAttestVector) async throws
  {
    let time = try #require(vector.verificationTime)
    let right = try verifier(vector)
    #expect(failure(right, vector) == nil)
    // Valid the second before the leaf's notAfter, expired the second after it.
    let notAfter = try await leafNotAfter(vector)
    #expect(notAfter > time)
    #expect(failure(right, vector, at: notAfter - 1) == nil)
    #expect(failure(right, vector, at: notAfter + 1) == .certificateNotValidAtTime)
    #expect(failure(try verifier(vector, appID: vector.appID + "x"), vector) == .rpIDMismatch)
    let other: AppAttestEnvironment = vector.environment == "production" ? .development : .production
    #expect(failure(try verifier(vector, environment: other), vector) == .aaguidMismatch)
    #expect(
      failure(right, vector, clientDataHash: NostrSHA256.hash(vector.clientData + [0])) == .nonceMismatch)
  }

  /// The stored key of an assertion: from its attestation, verified, else as the vector states.
  func publicKey(_ vector: AppAttestVector) throws -> [UInt8] {
    if let reference = vector.attestationRef {
      let attestation = try #require(AppAttestVector.named(reference))
      return try verifier(attestation).verifyAttestation(
        attestation.object, keyID: attestation.keyID, clientDataHash: clientDataHash(attestation),
        at: try #require(attestation.verificationTime)
      ).publicKey
    }
    let key = try #require(vector.publicKey)
    #expect(NostrSHA256.hash(key) == vector.keyID)
    return key
  }

  @Test(arguments: AppAttestVector.assertions)
  func anAssertionVerifiesAndYieldsItsCounter(_ vector: AppAttestVector) throws {
    let key = try publicKey(vector)
    let counter = try verifier(vector).verifyAssertion(
      vector.object, clientData: vector.clientData, publicKey: key,
      previousCounter: try #require(vector.previousCounter))
    #expect(counter == vector.expectedCounter)
  }

  @Test(arguments: AppAttestVector.assertions)
  func anAssertionFailsWithOtherClientDataAppIDOrAReplayedCounter(_ vector: AppAttestVector) throws {
    let key = try publicKey(vector)
    let counter = try #require(vector.expectedCounter)
    #expect(
      throws: AppAttestError(code: .invalidSignature, message: ""),
      performing: {
        try verifier(vector).verifyAssertion(
          vector.object, clientData: vector.clientData + [0], publicKey: key, previousCounter: 0)
      })
    #expect(
      throws: AppAttestError(code: .rpIDMismatch, message: ""),
      performing: {
        try verifier(vector, appID: vector.appID + "x").verifyAssertion(
          vector.object, clientData: vector.clientData, publicKey: key, previousCounter: 0)
      })
    #expect(
      throws: AppAttestError(code: .counterNotIncreasing, message: ""),
      performing: {
        try verifier(vector).verifyAssertion(
          vector.object, clientData: vector.clientData, publicKey: key, previousCounter: counter)
      })
  }

  @Test func everyTruncationOfARealAttestationFailsAtTheCBOR() throws {
    let vector = try #require(AppAttestVector.named("veehaitch-ios-14.2-attestation"))
    let verifier = try verifier(vector)
    for length in 0..<vector.object.count {
      #expect(
        throws: AppAttestError(code: .cborTruncated, message: ""),
        performing: {
          try verifier.verifyAttestation(
            Array(vector.object.prefix(length)), keyID: vector.keyID, clientDataHash: clientDataHash(vector),
            at: vector.verificationTime ?? 0)
        })
    }
  }
  /// Random byte changes of a real attestation: each is refused with a typed error, or verifies
  /// to the same key (a change inside the receipt, which Apple's steps do not read).
  @Test func changedBytesOfARealAttestationAreRefusedOrKeepTheKey() throws {
    let vector = try #require(AppAttestVector.named("uebelack-production-attestation"))
    let verifier = try verifier(vector)
    let time = try #require(vector.verificationTime)
    let original = try verifier.verifyAttestation(
      vector.object, keyID: vector.keyID, clientDataHash: clientDataHash(vector), at: time)
    var random = SplitMix64(seed: 0x4150_5041_5454)
    var refused = 0
    for _ in 0..<1000 {
      var bytes = vector.object
      for _ in 0...Int.random(in: 0...2, using: &random) {
        bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
      }
      do {
        let key = try verifier.verifyAttestation(
          bytes, keyID: vector.keyID, clientDataHash: clientDataHash(vector), at: time)
        #expect(key.publicKey == original.publicKey)
        #expect(key.receipt != original.receipt)
      } catch {
        refused += 1
      }
    }
    #expect(refused > 500)
  }
}
#endif
