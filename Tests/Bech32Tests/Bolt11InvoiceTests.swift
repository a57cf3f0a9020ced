import Bech32
import Foundation
import NostrEvent
import NostrPushCore
import NostrPushTestSupport
import Testing

/// `Bolt11Invoice` against the invoice examples of BOLT #11 (`Fixtures/vectors/bolt11`), and the
/// amount rules on their own.
@Suite struct Bolt11InvoiceTests {
  struct Examples: Decodable {
    struct Valid: Decodable {
      let name: String
      let invoice: String
      let currency: String
      let amount_msat: UInt64?
      let timestamp: UInt64
      let payment_hash: String
      let description: String?
      let hashed_description: String?
    }
    struct Invalid: Decodable {
      let name: String
      let invoice: String
      let code: String
    }
    let valid: [Valid]
    let invalid: [Invalid]
  }

  /// An error as the decoder reports it: equality is on the code and the field.
  static func error(_ code: String) -> Bech32Error {
    Bech32Error(code: .init(code), field: "invoice", message: "")
  }

  static let examples: Examples = {
    let url = PackageRoot.vectors.appendingPathComponent("bolt11/bolt11-examples.json")
    return try! JSONDecoder().decode(Examples.self, from: Data(contentsOf: url))
  }()

  @Test func decodesEverySpecificationExampleToItsDocumentedValues() throws {
    #expect(Self.examples.valid.count == 12)
    for example in Self.examples.valid {
      let invoice = try Bolt11Invoice(decoding: example.invoice)
      #expect(invoice.currency == example.currency, "\(example.name)")
      #expect(invoice.amountMillisatoshis == example.amount_msat, "\(example.name)")
      #expect(invoice.timestamp == example.timestamp, "\(example.name)")
      #expect(invoice.paymentHash.map(Hex.encode) == example.payment_hash, "\(example.name)")
      #expect(invoice.description == example.description, "\(example.name)")
      #expect(
        invoice.descriptionHash == example.hashed_description.map { NostrSHA256.hash(Array($0.utf8)) },
        "\(example.name)")
    }
  }

  @Test func refusesEveryInvalidSpecificationExampleWithItsCode() {
    #expect(Self.examples.invalid.count == 6)
    for example in Self.examples.invalid {
      #expect(throws: Self.error(example.code), "\(example.name)") {
        try Bolt11Invoice(decoding: example.invoice)
      }
    }
  }

  @Test func convertsEveryMultiplierToMillisatoshis() throws {
    let cases: [(String, UInt64)] = [
      ("1", 100_000_000_000), ("21m", 2_100_000_000), ("1000u", 100_000_000), ("10n", 1_000), ("10p", 1),
      ("2500u", 250_000_000), ("184467440p", 18_446_744),
    ]
    for (amount, expected) in cases {
      #expect(try Bolt11Invoice.millisatoshis(ArraySlice(amount.utf8)) == expected, "\(amount)")
    }
    for refused in ["", "m", "0", "05u", "1x", "15p", "1.5m", "99999999999999999999", "200000000000"] {
      #expect(throws: Self.error("invalid_amount"), "\(refused)") {
        try Bolt11Invoice.millisatoshis(ArraySlice(refused.utf8))
      }
    }
  }

  @Test func takesOffALightningSchemeAndRefusesAnotherCurrencyOrPrefix() throws {
    let coffee = Self.examples.valid[1].invoice
    #expect(try Bolt11Invoice(decoding: "lightning:" + coffee).amountSatoshis == 250_000)
    #expect(try Bolt11Invoice(decoding: "LIGHTNING:" + coffee).amountSatoshis == 250_000)
    let words = Array(repeating: UInt8(0), count: 111)
    for hrp in ["lnxy", "bc", "lnbc2500u"] {
      let text = try Bech32.encode(hrp: hrp, words: words, limit: Bech32.Limit(maxLength: 500))
      if hrp == "lnbc2500u" {
        #expect(try Bolt11Invoice(decoding: text).amountMillisatoshis == 250_000_000)
      } else {
        #expect(throws: Self.error("unknown_prefix")) { try Bolt11Invoice(decoding: text) }
      }
    }
  }

  @Test func refusesATaggedFieldRunningIntoTheSignature() throws {
    // Timestamp, then a field announcing 40 words where only 5 stand before the signature.
    let words =
      Array(repeating: UInt8(0), count: 7) + [1, 1, 8] + Array(repeating: 0, count: 5)
      + Array(repeating: 0, count: 104)
    let text = try Bech32.encode(hrp: "lnbc", words: words, limit: Bech32.Limit(maxLength: 500))
    #expect(throws: Self.error("invalid_length")) { try Bolt11Invoice(decoding: text) }
  }

  @Test func refusesAnInvoiceOverTheLengthBound() throws {
    let words = Array(repeating: UInt8(0), count: Bolt11Invoice.maxLength)
    let text = try Bech32.encode(hrp: "lnbc", words: words, limit: Bech32.Limit(maxLength: 10_000))
    #expect(throws: Self.error("invalid_length")) { try Bolt11Invoice(decoding: text) }
  }
}
