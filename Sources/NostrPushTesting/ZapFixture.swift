import Bech32
import NostrEvent

/// NIP-57 zaps made for tests, the demo and benchmarks: a zap request, a BOLT-11 invoice whose
/// description hash covers it, and the receipt a zapper signs.
///
/// The invoice holds a timestamp, a payment hash (`p`) and the description hash (`h`); its
/// signature words are zero, because the resolver does not check the payee's node signature
/// (the payee's node key is not the account's to know).
public enum ZapFixture {
  /// An invoice `lnbc<amount>` (`210n` is 21 000 msat, `210u` 21 000 000 msat, `""` no amount)
  /// whose `h` is SHA-256 of `described`, dated `timestamp`.
  public static func invoice(amount: String, describing described: String, timestamp: Int64)
    throws(Bech32Error)
    -> String
  {
    let time = (0..<7).reversed().map { UInt8((UInt64(timestamp) >> (5 * UInt64($0))) & 31) }
    let paymentHash = Bech32.words(fromBytes: [UInt8](repeating: 7, count: 32))
    let descriptionHash = Bech32.words(fromBytes: NostrSHA256.hash(Array(described.utf8)))
    let words =
      time + [1, 1, 20] + paymentHash + [23, 1, 20] + descriptionHash + [UInt8](repeating: 0, count: 104)
    return try Bech32.encode(hrp: "lnbc" + amount, words: words, limit: Bech32.Limit(maxLength: 2_000))
  }

  /// A zap request (kind 9734) by `sender` to `recipient` about `target`, stating `amount` msats
  /// (none when nil), with `comment` as its content.
  public static func request(
    by sender: SecretKey, to recipient: String, target: String?, amount: UInt64?, comment: String,
    createdAt: Int64, extraTags: [[String]] = []
  ) throws(EventError) -> Event {
    var tags = [["p", recipient], ["relays", "wss://relay.example"]]
    if let target { tags.append(["e", target]) }
    if let amount { tags.append(["amount", String(amount)]) }
    return try UnsignedEvent(
      pubkey: sender.publicKeyHex, createdAt: createdAt, kind: EventKind.zapRequest, tags: tags + extraTags,
      content: comment
    ).signed(with: sender)
  }

  /// The receipt (kind 9735) `zapper` signs for `request`, to `recipient`, about the request's `e`,
  /// with an invoice for `invoiceAmount` over the request's JSON (or over `described`); an
  /// amount the invoice cannot carry throws `invalid_field` (field `bolt11`).
  public static func receipt(
    for request: Event, by zapper: SecretKey, to recipient: String, invoiceAmount: String,
    described: String? = nil, createdAt: Int64
  ) throws(EventError) -> Event {
    let description = String(decoding: request.jsonBytes(), as: UTF8.self)
    let bolt11: String
    do {
      bolt11 = try invoice(amount: invoiceAmount, describing: described ?? description, timestamp: createdAt)
    } catch {
      throw EventError(code: .invalidField, field: "bolt11", message: "bolt11: \(error.message)")
    }
    var tags = [["p", recipient]]
    if let target = request.tagValues("e").first { tags.append(["e", target]) }
    tags += [["bolt11", bolt11], ["description", description]]
    return try UnsignedEvent(
      pubkey: zapper.publicKeyHex, createdAt: createdAt, kind: EventKind.zapReceipt, tags: tags, content: ""
    ).signed(with: zapper)
  }
}
