import NostrPushCore

/// A BOLT-11 Lightning invoice, read as far as a NIP-57 zap receipt needs: the currency, the
/// amount in millisatoshis, the timestamp and the hashes.
///
/// Reading follows BOLT #11's reader rules for what it reads: bech32 without the 90-character cap
/// (bounded here by ``maxLength``), upper or lower case but never mixed, the human-readable part
/// `ln` + a currency prefix + an optional positive amount with an optional multiplier (`m`, `u`,
/// `n`, `p`; a `p` amount must end in 0, since it must be a whole number of millisatoshis), then a
/// 35-bit timestamp, tagged fields (5-bit type, 10-bit length) and a 520-bit signature. Fields of
/// unexpected lengths and unknown types are skipped, as BOLT #11 says.
///
/// Decision: the signature is **not** checked and feature bits are not judged. A zap receipt's
/// invoice is paid already; what the extension needs is its amount and its description hash,
/// which the receipt's signer (the account's zapper key) vouches for, and the payee's node key
/// is not the extension's to know.
public struct Bolt11Invoice: Sendable, Hashable {
  /// The longest invoice accepted, in characters: far past what wallets produce (a few hundred
  /// to about 1 500 with many route hints), well inside a zap receipt's tag bound.
  public static let maxLength = 7_168

  /// The currency prefixes read: Bitcoin mainnet, testnet, regtest, simnet and signet.
  public static let currencies: Set<String> = ["bc", "tb", "bcrt", "sb", "tbs"]

  /// The currency prefix after `ln` (`bc` for Bitcoin mainnet).
  public let currency: String
  /// The amount requested, in millisatoshis; nil for an invoice without an amount.
  public let amountMillisatoshis: UInt64?
  /// When the invoice was created, in seconds since 1970.
  public let timestamp: UInt64
  /// The SHA-256 payment hash (`p`), 32 bytes, when present.
  public let paymentHash: [UInt8]?
  /// The SHA-256 of the description (`h`), 32 bytes, when present: for a zap, of the zap request.
  public let descriptionHash: [UInt8]?
  /// The short description (`d`), when present and valid UTF-8.
  public let description: String?

  /// The amount in whole satoshis (rounded down), nil without an amount.
  public var amountSatoshis: UInt64? { amountMillisatoshis.map { $0 / 1_000 } }

  /// Reads `text` (an optional `lightning:` scheme is taken off).
  ///
  /// Throws `Bech32Error` with field `invoice`: the codec's codes for the string (`invalid_checksum`, `mixed_case`,
  /// `invalid_character`, `invalid_length`), `unknown_prefix` for a prefix other than `ln` + a
  /// known currency, `invalid_amount` for a malformed amount or multiplier, and `invalid_length`
  /// for data too short to hold the timestamp and the signature.
  public init(decoding text: String) throws(Bech32Error) {
    var invoice = Substring(text)
    if invoice.count > 10, invoice.prefix(10).lowercased() == "lightning:" { invoice = invoice.dropFirst(10) }
    let decoded: Bech32.Decoded
    do {
      decoded = try Bech32.decode(String(invoice), limit: Bech32.Limit(maxLength: Self.maxLength))
    } catch {
      throw Bech32Error(code: error.code, field: "invoice", message: error.message, detail: error.detail)
    }
    let (currency, amount) = try Self.readPrefix(decoded.hrp)
    let words = decoded.words
    guard words.count >= Self.timestampWords + Self.signatureWords else {
      throw Bech32Error(
        code: .invalidLength, field: "invoice",
        message: "\(words.count) data words cannot hold a timestamp and a signature")
    }
    self.currency = currency
    self.amountMillisatoshis = amount
    self.timestamp = Self.number(words[0..<Self.timestampWords])
    var fields = Fields()
    var index = Self.timestampWords
    let end = words.count - Self.signatureWords
    while index < end {
      guard index + 3 <= end else {
        throw Bech32Error(
          code: .invalidLength, field: "invoice", message: "a tagged field's header runs into the signature",
          detail: index)
      }
      let type = words[index]
      let length = Int(words[index + 1]) << 5 | Int(words[index + 2])
      let dataStart = index + 3
      guard dataStart + length <= end else {
        throw Bech32Error(
          code: .invalidLength, field: "invoice", message: "tagged field \(type) runs into the signature",
          detail: index)
      }
      fields.read(type: type, data: words[dataStart..<(dataStart + length)])
      index = dataStart + length
    }
    paymentHash = fields.paymentHash
    descriptionHash = fields.descriptionHash
    description = fields.description
  }

  /// The 5-bit words of the timestamp.
  static let timestampWords = 7
  /// The 5-bit words of the 65-byte signature (520 bits).
  static let signatureWords = 104

  /// The first field of each type BOLT #11 defines with the length it defines (later ones are less
  /// preferred; others are skipped).
  private struct Fields {
    var paymentHash: [UInt8]?
    var descriptionHash: [UInt8]?
    var description: String?

    /// Tagged-field types, as 5-bit values.
    static let paymentHashType: UInt8 = 1
    static let descriptionType: UInt8 = 13
    static let descriptionHashType: UInt8 = 23
    /// The length of a 256-bit hash field, in words.
    static let hashWords = 52

    mutating func read(type: UInt8, data: ArraySlice<UInt8>) {
      switch type {
      case Self.paymentHashType where data.count == Self.hashWords && paymentHash == nil:
        paymentHash = Self.hash(data)
      case Self.descriptionHashType where data.count == Self.hashWords && descriptionHash == nil:
        descriptionHash = Self.hash(data)
      case Self.descriptionType where description == nil:
        description = (try? Bech32.bytes(fromWords: Array(data))).flatMap { UTF8Text.decode($0) }
      default: break
      }
    }

    /// 52 words are 260 bits: the 256-bit hash and 4 zero padding bits (else nil: skipped).
    static func hash(_ data: ArraySlice<UInt8>) -> [UInt8]? {
      try? Bech32.bytes(fromWords: Array(data))
    }
  }

  /// The currency and the amount in millisatoshis of a human-readable part.
  private static func readPrefix(_ hrp: String) throws(Bech32Error) -> (String, UInt64?) {
    let bytes = Array(hrp.utf8)
    guard bytes.count > 2, bytes[0] == UInt8(ascii: "l"), bytes[1] == UInt8(ascii: "n") else {
      throw Bech32Error(code: .unknownPrefix, field: "invoice", message: "\"\(hrp)\" does not start with ln")
    }
    let rest = bytes[2...]
    let digitsStart =
      rest.firstIndex(where: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) ?? rest.endIndex
    let currency = String(decoding: rest[..<digitsStart], as: UTF8.self)
    guard currencies.contains(currency) else {
      throw Bech32Error(
        code: .unknownPrefix, field: "invoice", message: "\"\(currency)\" is not a currency prefix read here")
    }
    let amountText = rest[digitsStart...]
    guard !amountText.isEmpty else { return (currency, nil) }
    return (currency, try millisatoshis(amountText))
  }

  /// Millisatoshis for an amount of bitcoin with an optional multiplier letter.
  package static func millisatoshis(_ text: ArraySlice<UInt8>) throws(Bech32Error) -> UInt64 {
    func refuse(_ why: String) -> Bech32Error {
      Bech32Error(
        code: .invalidAmount, field: "invoice",
        message: "amount \"\(String(decoding: text, as: UTF8.self))\" \(why)")
    }
    var digits = text
    // Millisatoshis per unit of the amount, and the divisor for pico-bitcoin.
    var perUnit: UInt64 = 100_000_000_000
    var divisor: UInt64 = 1
    if let last = digits.last, !(last >= UInt8(ascii: "0") && last <= UInt8(ascii: "9")) {
      switch last {
      case UInt8(ascii: "m"): perUnit = 100_000_000
      case UInt8(ascii: "u"): perUnit = 100_000
      case UInt8(ascii: "n"): perUnit = 100
      case UInt8(ascii: "p"): (perUnit, divisor) = (1, 10)
      default: throw refuse("has an unknown multiplier")
      }
      digits = digits.dropLast()
    }
    guard !digits.isEmpty, digits.count <= 19,
      digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { throw refuse("is not a decimal number") }
    guard digits.first != UInt8(ascii: "0") else { throw refuse("is zero or has a leading zero") }
    let value = digits.reduce(UInt64(0)) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
    guard value % divisor == 0 else { throw refuse("is not a whole number of millisatoshis") }
    let (total, overflow) = (value / divisor).multipliedReportingOverflow(by: perUnit)
    guard !overflow else { throw refuse("is too large") }
    return total
  }

  /// The big-endian number in 5-bit `words`.
  private static func number(_ words: ArraySlice<UInt8>) -> UInt64 {
    words.reduce(UInt64(0)) { $0 << 5 | UInt64($1) }
  }
}
