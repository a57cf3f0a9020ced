import Bech32
import NostrEvent
import NostrPushCore
import NostrPushTesting
import NotificationResolver

extension BenchmarkRegistry {
  /// The social row of `Docs/Performance.md` (`--only social`): validating one zap receipt
  /// (BOLT-11 decode, the zap request parsed and verified, the description hash, the zapper key)
  /// beside one raw `secp256k1_xonly_pubkey_parse` + `schnorrsig_verify` on pre-decoded bytes.
  ///
  /// Each repetition is the fastest of several batches, for both sides, as the gift-wrap row does.
  static func socialBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let batches = quick ? 5 : 20
    let perBatch = 200
    let world = try ZapBenchmarkWorld()
    let baseline = DecodedSignatures([world.request])

    /// Seconds per call of the fastest of `batches` batches of `perBatch` calls.
    func fastest(_ call: () -> Void) -> Double {
      var best = Double.infinity
      for _ in 0..<batches {
        best = min(best, Stopwatch.seconds { for _ in 0..<perBatch { call() } } / Double(perBatch))
      }
      return best
    }

    let zap = Benchmark(
      module: "NotificationResolver",
      name: "zap receipt validation (BOLT-11 decode, zap request verified, description hash)",
      unit: "µs", baselineName: "one xonly_pubkey_parse + schnorrsig_verify (pre-decoded)",
      target: "≤ 3 × baseline",
      baseline: { fastest { baseline.verifyAll() } * 1e6 },
      measured: {
        fastest {
          let judged = ZapReceipt(
            receipt: world.receipt, account: world.account, zapperPubkeys: [world.zapper])
          precondition(judged.amountMillisatoshis == 21_000)
        } * 1e6
      },
      passes: { summary in summary.ratio.map { $0 <= 3 } })
    let notes = [
      "social: each repetition is the fastest of \(batches) batches of \(perBatch) calls; invoice "
        + "\(world.invoiceLength) characters, zap request \(world.descriptionLength) bytes"
    ]
    return ([zap], notes)
  }
}

/// One validated zap: the account, its zapper's key, a signed zap request for 21 sats and the
/// receipt carrying it with a BOLT-11 invoice whose description hash commits to it.
struct ZapBenchmarkWorld {
  let account: String
  let zapper: String
  let request: Event
  let receipt: Event
  let invoiceLength: Int
  let descriptionLength: Int

  init() throws {
    let now: Int64 = 1_767_225_600
    let accountKey = try SecretKey(hex: "0e0f3f5b0d1f0f6cbf3a2e5d8d9a1c4b7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b")
    let senderKey = try SecretKey(hex: "7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a")
    let zapperKey = try SecretKey(hex: "3b1e9d5c7a2f4e6d8c0b1a29384756a1b2c3d4e5f60718293a4b5c6d7e8f9012")
    account = accountKey.publicKeyHex
    zapper = zapperKey.publicKeyHex
    let note = String(repeating: "ab", count: 32)
    request = try UnsignedEvent(
      pubkey: senderKey.publicKeyHex, createdAt: now - 5, kind: 9734,
      tags: [["p", account], ["e", note], ["amount", "21000"], ["relays", "wss://relay.example"]],
      content: "great post"
    ).signed(with: senderKey)
    let description = String(decoding: request.jsonBytes(), as: UTF8.self)
    let invoice = try ZapFixture.invoice(amount: "210n", describing: description, timestamp: now)
    receipt = try UnsignedEvent(
      pubkey: zapper, createdAt: now, kind: 9735,
      tags: [["p", account], ["e", note], ["bolt11", invoice], ["description", description]], content: ""
    ).signed(with: zapperKey)
    invoiceLength = invoice.count
    descriptionLength = description.utf8.count
  }
}
