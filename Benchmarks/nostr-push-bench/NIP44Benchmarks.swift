import NIP44
import NostrEvent
import NostrPushTestSupport

#if canImport(CSecp256k1)
import CSecp256k1
#else
import libsecp256k1
#endif

extension BenchmarkRegistry {
  /// The NIP44 rows of `Docs/Performance.md`: a 4 KiB round trip (a fresh conversation key on each side,
  /// encrypt, decrypt) beside one raw `secp256k1_ecdh` call, and ChaCha20 over 16 KiB beside
  /// `openssl speed -evp chacha20`.
  ///
  /// A round trip takes far less than a time slice, so each repetition is the fastest of several
  /// batches, for the measured figure and its baseline alike.
  static func nip44Benchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let batches = quick ? 5 : 20
    let roundTripsPerBatch = 50
    let ecdhPerBatch = 200
    let chachaPerBatch = 100
    let alice = try SecretKey(hex: "7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a")
    let bob = try SecretKey(hex: "0e0f3f5b0d1f0f6cbf3a2e5d8d9a1c4b7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b")
    var random = SplitMix64(seed: 0x4E49_5034)
    let plaintext = String((0..<4096).map { _ in Character(UnicodeScalar(UInt8(97 + random.next() % 26))) })

    /// Seconds per call of the fastest of `batches` batches of `count` calls.
    func fastest(_ count: Int, _ call: () throws -> Void) rethrows -> Double {
      var best = Double.infinity
      for _ in 0..<batches {
        best = min(best, try Stopwatch.seconds { for _ in 0..<count { try call() } } / Double(count))
      }
      return best
    }

    let roundTrip = Benchmark(
      module: "NIP44", name: "round trip of 4 KiB: conversation key on each side, encrypt, decrypt",
      unit: "µs",
      baselineName: "one secp256k1_ecdh (copy-x callback, pre-parsed point)",
      target: "≤ 3 × baseline (1.5 × two ECDH calls)",
      baseline: {
        try ecdhMicroseconds(
          secret: alice, publicKey: bob.publicKeyHex, count: ecdhPerBatch, fastest: fastest)
      },
      measured: {
        try fastest(roundTripsPerBatch) {
          let sending = try NIP44.ConversationKey(secretKey: alice, publicKey: bob.publicKeyHex)
          let payload = try NIP44.encrypt(plaintext, conversationKey: sending)
          let receiving = try NIP44.ConversationKey(secretKey: bob, publicKey: alice.publicKeyHex)
          let opened = try NIP44.decrypt(payload, conversationKey: receiving)
          precondition(opened.utf8.count == 4096)
        } * 1e6
      },
      passes: { summary in summary.ratio.map { $0 <= 3.0 } })

    let cached = try NIP44.ConversationKey(secretKey: alice, publicKey: bob.publicKeyHex)
    let keyOnly = Benchmark(
      module: "NIP44",
      name: "breakdown: one ConversationKey(secretKey:publicKey:) (parse, ECDH, HKDF-extract)",
      unit: "µs", baselineName: "—", target: "report (where the round trip spends its time)", baseline: nil,
      measured: {
        try fastest(roundTripsPerBatch) {
          _ = try NIP44.ConversationKey(secretKey: alice, publicKey: bob.publicKeyHex)
        } * 1e6
      },
      passes: { _ in nil })
    let symmetricOnly = Benchmark(
      module: "NIP44", name: "breakdown: encrypt + decrypt of 4 KiB with a cached conversation key",
      unit: "µs",
      baselineName: "—", target: "report (where the round trip spends its time)", baseline: nil,
      measured: {
        try fastest(roundTripsPerBatch) {
          let payload = try NIP44.encrypt(plaintext, conversationKey: cached)
          let opened = try NIP44.decrypt(payload, conversationKey: cached)
          precondition(opened.utf8.count == 4096)
        } * 1e6
      },
      passes: { _ in nil })

    let openssl = OpenSSLBaseline(evp: "chacha20")
    var buffer = [UInt8](repeating: 0x5A, count: 16_384)
    let key = [UInt8](repeating: 7, count: 32)
    let nonce = [UInt8](repeating: 9, count: 12)
    let chacha = openssl.row(
      module: "NIP44", name: "ChaCha20 over 16 KiB",
      measured: {
        let seconds = fastest(chachaPerBatch) {
          buffer.withUnsafeMutableBytes { data in
            key.withUnsafeBytes { key in
              nonce.withUnsafeBytes { nonce in ChaCha20.apply(key: key, nonce: nonce, counter: 0, to: data) }
            }
          }
        }
        return 16_384 / seconds / 1e6
      })

    let notes = [
      "nip44: each repetition is the fastest of \(batches) batches (\(roundTripsPerBatch) round trips, "
        + "\(ecdhPerBatch) ECDH calls, \(chachaPerBatch) ChaCha20 passes); SHA-256 engine \(NostrSHA256.implementationName)",
      !openssl.isAvailable
        ? "nip44: openssl n/a (no openssl on PATH, or its output was not understood)"
        : "nip44: openssl speed -evp chacha20 -bytes 16384 -seconds 1: read once per repetition",
    ]
    return ([roundTrip, keyOnly, symmetricOnly, chacha], notes)
  }

  /// Microseconds per raw `secp256k1_ecdh` call on a point parsed once, with the copy-x callback.
  private static func ecdhMicroseconds(
    secret: SecretKey, publicKey: String, count: Int, fastest: (Int, () throws -> Void) throws -> Double
  ) throws -> Double {
    let context = Secp256k1.verifiedStaticContext
    guard let x = Hex.decode(publicKey) else { return 0 }
    var point = secp256k1_pubkey()
    let compressed = [0x02] + x
    guard secp256k1_ec_pubkey_parse(context, &point, compressed, 33) == 1 else { return 0 }
    var output = [UInt8](repeating: 0, count: 32)
    return try fastest(count) {
      let status = secret.withUnsafeBytes { scalar in
        secp256k1_ecdh(
          context, &output, &point, scalar.baseAddress!.assumingMemoryBound(to: UInt8.self),
          { output, x32, _, _ in
            guard let output, let x32 else { return 0 }
            output.update(from: x32, count: 32)
            return 1
          }, nil)
      }
      precondition(status == 1)
    } * 1e6
  }
}
