import Bech32
import NostrEvent

/// BOLT-11 invoices made for zap tests: a timestamp, a payment hash and a description hash over
/// the given text; signature words are zero (the resolver does not check the payee's signature).
enum ZapInvoice {
  /// An invoice for `amount` (its human-readable amount, e.g. `210n`) whose `h` is SHA-256 of
  /// `described`, dated `now`.
  static func make(amount: String, describing described: String, now: Int64) throws -> String {
    let timestamp = words(of: UInt64(now), count: 7)
    let paymentHash = Bech32.words(fromBytes: [UInt8](repeating: 7, count: 32))
    let descriptionHash = Bech32.words(fromBytes: NostrSHA256.hash(Array(described.utf8)))
    let words =
      timestamp + [1, 1, 20] + paymentHash + [23, 1, 20] + descriptionHash + [UInt8](repeating: 0, count: 104)
    return try Bech32.encode(hrp: "lnbc" + amount, words: words, limit: Bech32.Limit(maxLength: 2_000))
  }

  /// `value` as `count` big-endian 5-bit words.
  static func words(of value: UInt64, count: Int) -> [UInt8] {
    (0..<count).reversed().map { UInt8((value >> (5 * UInt64($0))) & 31) }
  }
}
