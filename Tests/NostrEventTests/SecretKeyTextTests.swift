import Bech32
import NostrEvent
import Testing

/// Reading a key as people store it: hex or nsec, whitespace around it, nothing else.
@Suite struct SecretKeyTextTests {
  /// A test key only (BIP-340 test vector 1's secret key).
  static let hex = "b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfef"

  @Test func readsHexInEitherCaseAndAnNsecWithWhitespaceAround() throws {
    let expected = try SecretKey(hex: Self.hex).publicKeyHex
    let nsec = try NIP19Entity.nsec(secretKey: Self.hex).encoded()
    for text in ["\(Self.hex)\n", "  \(Self.hex.uppercased())\t", "\n\(nsec)\r\n"] {
      #expect(try SecretKey(parsing: text).publicKeyHex == expected)
    }
  }

  @Test(arguments: [
    "", "abc", String(repeating: "0", count: 64), String(repeating: "f", count: 64),
    "nsec1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq", "npub1invalid",
    String(repeating: "a", count: 65), String(repeating: " ", count: SecretKey.maxTextBytes + 1),
  ])
  func refusesAnythingElse(text: String) {
    let error = #expect(throws: EventError.self) { try SecretKey(parsing: text) }
    #expect(error?.field == "secret_key")
  }
}
