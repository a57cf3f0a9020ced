import AppAttest
import Testing

/// Authenticator data: the fixed fields, the attested credential, and its bounds.
@Suite struct AuthenticatorDataTests {
  let rpIDHash = [UInt8](repeating: 0xAB, count: 32)

  @Test func readsTheFixedFieldsAndTheCredentialAndIgnoresWhatFollows() throws {
    let bytes =
      rpIDHash + [0x40, 0x00, 0x00, 0x01, 0x02] + Array("appattestdevelop".utf8) + [0x00, 0x03] + [7, 8, 9]
      + [0xA0, 0xFF, 0xFF]
    let data = try AuthenticatorData(bytes, attestedCredential: true)
    #expect(data.rpIDHash == rpIDHash)
    #expect(data.flags == 0x40)
    #expect(data.counter == 258)
    #expect(data.credential?.aaguid == Array("appattestdevelop".utf8))
    #expect(data.credential?.id == [7, 8, 9])
    #expect(try AuthenticatorData(Array(bytes.prefix(37)), attestedCredential: false).counter == 258)
  }

  @Test func refusesShortDataAndACredentialIDThatDoesNotFit() {
    #expect(throws: AppAttestError(code: .invalidAuthenticatorData, message: "")) {
      try AuthenticatorData(Array(rpIDHash + [0, 0, 0]), attestedCredential: false)
    }
    #expect(throws: AppAttestError(code: .invalidAuthenticatorData, message: "")) {
      try AuthenticatorData(rpIDHash + [0x40, 0, 0, 0, 0], attestedCredential: true)
    }
    let long = rpIDHash + [0x40, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16) + [0x00, 0x20] + [1, 2]
    #expect(throws: AppAttestError(code: .invalidAuthenticatorData, message: "")) {
      try AuthenticatorData(long, attestedCredential: true)
    }
  }
}
