import Bech32
import NostrPushTestSupport

extension BenchmarkRegistry {
  /// The Bech32 rows of `Docs/Performance.md`: npub decode and npub encode, in nanoseconds per call,
  /// each with an absolute target of 1 µs.
  ///
  /// A call takes well under a scheduler time slice, so each repetition is the fastest of
  /// several batches: on a shared machine that removes preemption, not work, from the figure.
  static func bech32Benchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let keyCount = 256
    var random = SplitMix64(seed: 0xB3C4_3200)
    let digits = Array("0123456789abcdef")
    let keys = (0..<keyCount).map { _ in String((0..<64).map { _ in digits[Int(random.next() & 15)] }) }
    let npubs = try keys.map { try NIP19Entity.npub(pubkey: $0).encoded() }
    let batches = quick ? 10 : 40
    let callsPerBatch = 5_000
    let notes = [
      "bech32: \(keyCount) seeded keys cycled; each repetition is the fastest of \(batches) batches of "
        + "\(callsPerBatch) calls; decode is NIP19Entity(decoding:) to a hex pubkey, encode is "
        + "NIP19Entity.npub(pubkey:).encoded()"
    ]

    /// Nanoseconds per call of the fastest batch; `call` returns a byte count that is checked.
    func fastestBatch(expecting bytes: Int, _ call: (Int) throws -> Int) throws -> Double {
      var fastest = Double.infinity
      for _ in 0..<batches {
        var sink = 0
        let seconds = try Stopwatch.seconds {
          for index in 0..<callsPerBatch { sink &+= try call(index % keyCount) }
        }
        precondition(sink == callsPerBatch * bytes, "every call must produce a full result")
        fastest = min(fastest, seconds * 1e9 / Double(callsPerBatch))
      }
      return fastest
    }

    let decode = Benchmark(
      module: "Bech32", name: "npub decode (NIP19Entity(decoding:) → hex)", unit: "ns/call",
      baselineName: "—", target: "≤ 1000 ns", baseline: nil,
      measured: {
        try fastestBatch(expecting: 64) { index in
          guard case .npub(let pubkey) = try NIP19Entity(decoding: npubs[index]) else { return 0 }
          return pubkey.utf8.count
        }
      },
      passes: { $0.median <= 1_000 })

    let encode = Benchmark(
      module: "Bech32", name: "npub encode (NIP19Entity.npub(pubkey:).encoded())", unit: "ns/call",
      baselineName: "—", target: "≤ 1000 ns", baseline: nil,
      measured: {
        try fastestBatch(expecting: 63) { index in
          try NIP19Entity.npub(pubkey: keys[index]).encoded().utf8.count
        }
      },
      passes: { $0.median <= 1_000 })

    return ([decode, encode], notes)
  }
}
