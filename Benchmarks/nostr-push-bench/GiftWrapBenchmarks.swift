import GiftWrap
import NIP44
import NostrEvent
import NostrPushTestSupport

#if canImport(CSecp256k1)
import CSecp256k1
#else
import libsecp256k1
#endif

extension BenchmarkRegistry {
  /// The extension's unwrap row of `Docs/Performance.md`: opening one NIP-17 gift wrap (wrap
  /// verified, two NIP-44 opens, seal verified, rumor checked) beside what it cannot avoid, two
  /// raw `secp256k1_ecdh` and two raw `secp256k1_schnorrsig_verify` calls on pre-parsed keys.
  ///
  /// Each repetition is the fastest of several batches, for the measured figure and its
  /// baseline alike, as the NIP44 rows do.
  static func giftWrapBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let batches = quick ? 5 : 20
    let perBatch = 50
    let sender = try SecretKey(hex: "7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a")
    let recipient = try SecretKey(hex: "0e0f3f5b0d1f0f6cbf3a2e5d8d9a1c4b7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b")
    let now: Int64 = 1_767_225_600
    let wrapper = GiftWrapper(sender: sender)
    let rumor = wrapper.chatRumor(
      to: [recipient.publicKeyHex], text: "Lunch at noon? The usual place, I'll book a table for two.",
      createdAt: now)
    let wrap = try wrapper.wrap(rumor, for: recipient.publicKeyHex, now: now)
    let seal = try GiftWrapBenchmarkSeal.open(wrap, recipient: recipient)

    /// Seconds per call of the fastest of `batches` batches of `count` calls.
    func fastest(_ count: Int, _ call: () throws -> Void) rethrows -> Double {
      var best = Double.infinity
      for _ in 0..<batches {
        best = min(best, try Stopwatch.seconds { for _ in 0..<count { try call() } } / Double(count))
      }
      return best
    }

    let baseline = try RawUnwrapCost(recipient: recipient, wrap: wrap, seal: seal)
    let unwrap = Benchmark(
      module: "GiftWrap",
      name: "unwrap of one NIP-17 gift wrap (wrap verified, two NIP-44 opens, seal verified)",
      unit: "µs", baselineName: "two secp256k1_ecdh + two schnorrsig_verify (pre-parsed keys)",
      target: "≤ 1.5 × baseline",
      baseline: { fastest(perBatch) { baseline.run() } * 1e6 },
      measured: {
        try fastest(perBatch) {
          let message = try DirectMessage(unwrapping: wrap, recipient: recipient)
          precondition(message.kind == 14)
        } * 1e6
      },
      passes: { summary in summary.ratio.map { $0 <= 1.5 } })
    let notes = [
      "giftwrap: each repetition is the fastest of \(batches) batches of \(perBatch) calls; wrap content "
        + "\(wrap.content.utf8.count) characters, seal content \(seal.content.utf8.count)"
    ]
    return ([unwrap], notes)
  }
}

/// The seal inside a wrap, for the baseline's second ECDH and verify (the row's setup, not timed).
enum GiftWrapBenchmarkSeal {
  static func open(_ wrap: Event, recipient: SecretKey) throws -> Event {
    let key = try NIP44.ConversationKey(secretKey: recipient, publicKey: wrap.pubkey)
    return try Event(json: try NIP44.decrypt(wrap.content, conversationKey: key))
  }
}

/// The curve operations an unwrap cannot avoid, on keys and signatures decoded once: ECDH with
/// the wrap's and the seal's pubkeys, and BIP-340 verification of both events.
final class RawUnwrapCost {
  private let recipient: SecretKey
  private var points: [secp256k1_pubkey]
  private var xOnly: [secp256k1_xonly_pubkey]
  private let ids: [[UInt8]]
  private let signatures: [[UInt8]]
  private var output = [UInt8](repeating: 0, count: 32)

  init(recipient: SecretKey, wrap: Event, seal: Event) throws {
    let context = Secp256k1.verifiedStaticContext
    self.recipient = recipient
    points = []
    xOnly = []
    for event in [wrap, seal] {
      let x = Hex.decode(event.pubkey)!
      var point = secp256k1_pubkey()
      precondition(secp256k1_ec_pubkey_parse(context, &point, [0x02] + x, 33) == 1)
      points.append(point)
      var key = secp256k1_xonly_pubkey()
      precondition(secp256k1_xonly_pubkey_parse(context, &key, x) == 1)
      xOnly.append(key)
    }
    ids = [wrap, seal].map { Hex.decode($0.id)! }
    signatures = [wrap, seal].map { Hex.decode($0.sig)! }
  }

  /// Two ECDH calls (copy-x callback) and two signature checks.
  func run() {
    let context = Secp256k1.verifiedStaticContext
    for index in 0..<2 {
      let agreed = recipient.withUnsafeBytes { scalar in
        secp256k1_ecdh(
          context, &output, &points[index], scalar.baseAddress!.assumingMemoryBound(to: UInt8.self),
          { output, x32, _, _ in
            guard let output, let x32 else { return 0 }
            output.update(from: x32, count: 32)
            return 1
          }, nil)
      }
      let verified = secp256k1_schnorrsig_verify(context, signatures[index], ids[index], 32, &xOnly[index])
      precondition(agreed == 1 && verified == 1)
    }
  }
}
