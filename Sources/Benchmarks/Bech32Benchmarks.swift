import Bech32

extension BenchmarkRegistry {
  /// The Bech32 rows of `performance.md`: npub decode and npub encode, in nanoseconds per call,
  /// each with an absolute target of 1 µs.
  static func bech32Benchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let keyCount = 256
    var random = SeededGenerator(seed: 0xB3C4_3200)
    let digits = Array("0123456789abcdef")
    let keys = (0..<keyCount).map { _ in String((0..<64).map { _ in digits[Int(random.next() & 15)] }) }
    let npubs = try keys.map { try NIP19Entity.npub(pubkey: $0).encoded() }
    let calls = quick ? 50_000 : 500_000
    let notes = [
      "bech32: \(keyCount) seeded keys cycled, \(calls) calls per repetition; decode is "
        + "NIP19Entity(decoding:) to a hex pubkey, encode is NIP19Entity.npub(pubkey:).encoded()"
    ]

    let decode = Benchmark(
      module: "Bech32", name: "npub decode (NIP19Entity(decoding:) → hex)", unit: "ns/call",
      baselineName: "—", target: "≤ 1000 ns", baseline: nil,
      measured: {
        var sink = 0
        let seconds = try Stopwatch.seconds {
          for call in 0..<calls {
            guard case .npub(let pubkey) = try NIP19Entity(decoding: npubs[call % keyCount]) else {
              preconditionFailure("an npub must decode as npub")
            }
            sink &+= pubkey.utf8.count
          }
        }
        precondition(sink == calls * 64)
        return seconds * 1e9 / Double(calls)
      },
      passes: { $0.median <= 1_000 })

    let encode = Benchmark(
      module: "Bech32", name: "npub encode (NIP19Entity.npub(pubkey:).encoded())", unit: "ns/call",
      baselineName: "—", target: "≤ 1000 ns", baseline: nil,
      measured: {
        var sink = 0
        let seconds = try Stopwatch.seconds {
          for call in 0..<calls {
            sink &+= try NIP19Entity.npub(pubkey: keys[call % keyCount]).encoded().utf8.count
          }
        }
        precondition(sink == calls * 63)
        return seconds * 1e9 / Double(calls)
      },
      passes: { $0.median <= 1_000 })

    return ([decode, encode], notes)
  }
}
