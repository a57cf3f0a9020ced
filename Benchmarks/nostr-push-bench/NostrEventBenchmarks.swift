import Dispatch
import Foundation
import NostrEvent

#if canImport(CSecp256k1)
import CSecp256k1
#else
import libsecp256k1
#endif

extension BenchmarkRegistry {
  /// The NostrEvent rows of `Docs/Performance.md`: full verification against direct libsecp256k1,
  /// parallel verification against one core, and serialization + SHA-256 throughput.
  static func nostrEventBenchmarks(quick: Bool) throws -> (rows: [Benchmark], notes: [String]) {
    let count = quick ? 2_000 : 20_000
    let corpus = try EventCorpus(count: count)
    let documents = corpus.documents
    let decoded = DecodedSignatures(corpus.events)
    let cores = ProcessInfo.processInfo.activeProcessorCount
    var notes = [
      "corpus: \(count) events, \(EventCorpus.minimumBytes)–\(EventCorpus.maximumBytes) B log-uniform target, "
        + "mean \(Int(corpus.meanBytes)) B, min \(documents.map(\.count).min() ?? 0) B, "
        + "max \(documents.map(\.count).max() ?? 0) B; 16 signing keys; seeded",
      "cores: \(cores) (activeProcessorCount)",
    ]

    // Each repetition times the raw loop and full verification in alternating slices of the
    // corpus (`InterleavedVerification`), so that both see the machine in the same state.
    let wallPair = InterleavedVerification(
      documents: documents, decoded: decoded, clock: { Stopwatch.seconds($0) })
    let oneCore = Benchmark(
      module: "NostrEvent",
      name: "full verification, one core (JSON → locate → serialize → SHA-256 → BIP-340, as verify --jsonl)",
      unit: "events/s", baselineName: "xonly_pubkey_parse + schnorrsig_verify on pre-decoded bytes",
      target: "≥ 0.93 × baseline",
      baseline: wallPair.runBaseline, measured: wallPair.takeMeasured,
      passes: { summary in summary.ratio.map { $0 >= 0.93 } })

    // The same pair timed by the thread's CPU clock: on a shared machine with more runnable
    // threads than cores, wall time also counts the time the thread waited for a core.
    let cpuPair = InterleavedVerification(
      documents: documents, decoded: decoded, clock: { ThreadCPUClock.seconds($0) })
    let oneCoreCPU = Benchmark(
      module: "NostrEvent",
      name: "full verification, one core, thread CPU time (robust to an oversubscribed machine)",
      unit: "events/s", baselineName: "the same baseline, thread CPU time",
      target: "≥ 0.93 × baseline",
      baseline: cpuPair.runBaseline, measured: cpuPair.takeMeasured,
      passes: { summary in summary.ratio.map { $0 >= 0.93 } })

    // The public route, which builds an `Event` (strings, tag arrays) for every document.
    let oneCoreEvents = Benchmark(
      module: "NostrEvent",
      name: "full verification through Event(json:) + verify(), one core, thread CPU time",
      unit: "events/s", baselineName: "the same baseline, thread CPU time", target: "report",
      baseline: { Double(count) / ThreadCPUClock.seconds { decoded.verifyAll() } },
      measured: { Double(count) / ThreadCPUClock.seconds { verifyDocumentsAsEvents(documents) } },
      passes: { _ in nil })

    let oneCoreFigure = OneCoreFigure(documents: documents)
    let parallel = Benchmark(
      module: "NostrEvent", name: "parallel verification, all cores (BatchVerifier)", unit: "events/s",
      baselineName: "the one-core figure",
      target: "≥ 0.9 × cores (\(cores)) = \(String(format: "%.1f", 0.9 * Double(cores))) × baseline",
      baseline: { oneCoreFigure.measure() },
      measured: {
        Double(count)
          / Stopwatch.seconds {
            let results = BatchVerifier.verify(jsonDocuments: documents)
            precondition(results.allSatisfy { (try? $0.get())?.isValid == true }, "corpus must verify")
          }
      },
      passes: { summary in summary.ratio.map { $0 >= 0.9 * Double(cores) } })

    let big = try bigEvent()
    let bigBytes = big.canonicalBytes().count
    let rounds = quick ? 200 : 1_000
    let openssl = OpenSSLBaseline(evp: "sha256")
    notes.append(
      !openssl.isAvailable
        ? "openssl: n/a (no openssl on PATH, or its output was not understood)"
        : "openssl speed -evp sha256 -bytes 16384 -seconds 1: read once per repetition")
    let serialization = openssl.row(
      module: "NostrEvent", name: "canonical serialization + SHA-256, 64 KiB content event",
      measured: {
        var sink: UInt8 = 0
        let seconds = Stopwatch.seconds {
          for _ in 0..<rounds { sink ^= NostrSHA256.hash(big.canonicalBytes())[0] }
        }
        _ = sink
        return Double(bigBytes * rounds) / seconds / 1e6
      })

    let plain = [UInt8](repeating: 0x61, count: 16 * 1024)
    // SHA-256 of 16 KiB blocks by the preferred engine, in MB/s.
    let preferredSHA = {
      let rounds = quick ? 2_000 : 10_000
      var sink: UInt8 = 0
      let seconds = Stopwatch.seconds { for _ in 0..<rounds { sink ^= NostrSHA256.hash(plain)[0] } }
      _ = sink
      return Double(plain.count * rounds) / seconds / 1e6
    }
    let sha = openssl.row(
      module: "NostrEvent", name: "SHA-256 alone, 16 KiB blocks (\(NostrSHA256.implementationName))",
      measured: preferredSHA)
    let swiftSHA = Benchmark(
      module: "NostrEvent", name: "SHA-256 alone, 16 KiB blocks (Swift engine, as without SHA-NI)",
      unit: "MB/s", baselineName: "the preferred engine (\(NostrSHA256.implementationName))",
      target: "report",
      baseline: preferredSHA,
      measured: {
        let rounds = quick ? 500 : 2_500
        var digest = [UInt8](repeating: 0, count: 32)
        let seconds = plain.withUnsafeBytes { block in
          digest.withUnsafeMutableBytes { output in
            Stopwatch.seconds {
              for _ in 0..<rounds { NostrSHA256.hashWithSwiftEngine(buffer: block, into: output) }
            }
          }
        }
        return Double(plain.count * rounds) / seconds / 1e6
      },
      passes: { _ in nil })
    let events = corpus.events
    let parseOnly = Benchmark(
      module: "NostrEvent", name: "breakdown: parse only (JSON bytes → Event), one core", unit: "events/s",
      baselineName: "—", target: "report (where full verification spends its time)", baseline: nil,
      measured: {
        var parsed = 0
        let seconds = Stopwatch.seconds {
          for document in documents where (try? Event(json: document)) != nil { parsed += 1 }
        }
        precondition(parsed == count)
        return Double(count) / seconds
      },
      passes: { _ in nil })
    let idOnly = Benchmark(
      module: "NostrEvent", name: "breakdown: id only (canonical serialization + SHA-256), one core",
      unit: "events/s", baselineName: "—", target: "report (where full verification spends its time)",
      baseline: nil,
      measured: {
        var sink: UInt8 = 0
        let seconds = Stopwatch.seconds {
          for event in events { sink ^= NostrSHA256.hash(event.canonicalBytes())[0] }
        }
        _ = sink
        return Double(count) / seconds
      },
      passes: { _ in nil })
    return (
      [oneCore, oneCoreCPU, oneCoreEvents, parallel, parseOnly, idOnly, serialization, sha, swiftSHA], notes
    )
  }

  /// Full verification of every document as `nostr-push verify --jsonl` does it on one core:
  /// `EventDocumentVerifier` in place, `Event(json:)` + `verify()` for any other shape.
  static func verifyDocuments(_ documents: ArraySlice<[UInt8]>) {
    let verifier = EventDocumentVerifier()
    var valid = 0
    for document in documents {
      switch document.withUnsafeBytes({ verifier.verify($0) }) {
      case .valid: valid += 1
      case .idMismatch, .badSignature: break
      case .uncommonShape:
        if let event = try? Event(json: document), event.verify().isValid { valid += 1 }
      }
    }
    precondition(valid == documents.count, "every corpus event must verify")
  }

  /// The same through the public `Event(json:)` + `verify()`, which builds every `Event`.
  static func verifyDocumentsAsEvents(_ documents: [[UInt8]]) {
    var valid = 0
    for document in documents {
      if let event = try? Event(json: document), event.verify().isValid { valid += 1 }
    }
    precondition(valid == documents.count, "every corpus event must verify")
  }

  private static func bigEvent() throws -> Event {
    let key = try SecretKey(hex: String(repeating: "0", count: 63) + "7")
    var content = ""
    let line = "A long note with \"quotes\", a URL https://example.com/a?b=c, emoji 🎉 and a newline.\n"
    while content.utf8.count + line.utf8.count <= 64 * 1024 { content += line }
    return try UnsignedEvent(
      pubkey: key.publicKeyHex, createdAt: 1_700_000_000, kind: 30023, tags: [["d", "long-form"]],
      content: content
    ).signed(with: key)
  }

  /// Re-measures the one-core full-verification figure as the parallel row's baseline.
  private struct OneCoreFigure {
    var documents: [[UInt8]]
    func measure() -> Double {
      Double(documents.count) / Stopwatch.seconds { BenchmarkRegistry.verifyDocuments(documents[...]) }
    }
  }
}

/// The corpus' ids, keys and signatures decoded to bytes ahead of time, and checked straight
/// through libsecp256k1: the floor that full verification is compared with.
struct DecodedSignatures {
  var ids: [UInt8] = []
  var keys: [UInt8] = []
  var signatures: [UInt8] = []
  let count: Int

  init(_ events: [Event]) {
    // Once, here, as the library does once per process: never inside a timed loop.
    secp256k1_selftest()
    count = events.count
    for event in events {
      ids += Hex.decode(event.id)!
      keys += Hex.decode(event.pubkey)!
      signatures += Hex.decode(event.sig)!
    }
  }

  func verifyAll() {
    verify(0..<count)
  }

  /// Checks the signatures of the events in `range`.
  func verify(_ range: Range<Int>) {
    let context = nostrpushkit_context_static()!
    var valid = 0
    ids.withUnsafeBufferPointer { ids in
      keys.withUnsafeBufferPointer { keys in
        signatures.withUnsafeBufferPointer { signatures in
          for index in range {
            var key = secp256k1_xonly_pubkey()
            guard secp256k1_xonly_pubkey_parse(context, &key, keys.baseAddress! + 32 * index) == 1 else {
              continue
            }
            if secp256k1_schnorrsig_verify(
              context, signatures.baseAddress! + 64 * index, ids.baseAddress! + 32 * index, 32, &key) == 1
            {
              valid += 1
            }
          }
        }
      }
    }
    precondition(valid == range.count, "every corpus signature must verify")
  }
}

/// The raw loop and full verification timed in alternating slices of one corpus: `runBaseline`
/// runs both sides (slice by slice, raw first) and returns the raw figure; `takeMeasured` then
/// returns the full-verification figure of the same run.
///
/// A row whose two sides run one after the other for a second each is at the mercy of this
/// virtual machine's speed, which drifts by ±10 % within a minute; in slices of a tenth of the
/// corpus both sides see the same machine, and the ratio measures only the work added to
/// libsecp256k1's.
final class InterleavedVerification {
  /// The number of slices per side in one repetition.
  static let slices = 10

  private let documents: [[UInt8]]
  private let decoded: DecodedSignatures
  private let clock: (() -> Void) -> Double
  private var pendingMeasured: Double?

  init(documents: [[UInt8]], decoded: DecodedSignatures, clock: @escaping (() -> Void) -> Double) {
    self.documents = documents
    self.decoded = decoded
    self.clock = clock
  }

  /// Runs one interleaved repetition; the raw loop's events/s.
  func runBaseline() -> Double {
    let count = documents.count
    var rawSeconds = 0.0
    var fullSeconds = 0.0
    for slice in 0..<Self.slices {
      let range = (count * slice / Self.slices)..<(count * (slice + 1) / Self.slices)
      rawSeconds += clock { decoded.verify(range) }
      fullSeconds += clock { BenchmarkRegistry.verifyDocuments(documents[range]) }
    }
    pendingMeasured = Double(count) / fullSeconds
    return Double(count) / rawSeconds
  }

  /// The full-verification events/s of the repetition `runBaseline` just ran.
  func takeMeasured() throws -> Double {
    defer { pendingMeasured = nil }
    guard let pendingMeasured else { throw InterleavingError() }
    return pendingMeasured
  }

  /// `takeMeasured` was called without a repetition before it.
  struct InterleavingError: Error {}
}

/// The calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): time spent waiting for a core is
/// not counted.
enum ThreadCPUClock {
  /// CPU seconds the calling thread spent in `body`.
  static func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = now()
    try body()
    return now() - start
  }

  private static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}

/// Reads `openssl speed -evp <algorithm>` at 16 KiB, when openssl is installed.
enum OpenSSLSpeed {
  /// `openssl speed -evp algorithm -bytes 16384 -seconds 1` in MB/s (10^6 bytes per second), or
  /// nil when openssl is missing or its output unexpected.
  static func megabytesPerSecond(evp algorithm: String) -> Double? {
    let candidates = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
    guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
      return nil
    }
    let outPath = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nostrpush-openssl-\(UUID().uuidString).out"
    ).path
    defer { try? FileManager.default.removeItem(atPath: outPath) }
    let argv = [path, "speed", "-evp", algorithm, "-bytes", "16384", "-seconds", "1", "-mr"]
    guard (try? ChildProcess.run(argv, stdout: outPath, stderr: nil)) != nil,
      let text = try? String(contentsOfFile: outPath, encoding: .utf8)
    else { return nil }
    // Machine-readable output: a line "+F:<n>:<algorithm>:<bytes per second>".
    for line in text.split(separator: "\n") where line.hasPrefix("+F:") {
      if let value = line.split(separator: ":").last.flatMap({ Double($0) }) { return value / 1e6 }
    }
    return nil
  }
}

/// The `openssl speed -evp <algorithm>` baseline of a row (SHA-256, ChaCha20): probed once when
/// the rows are built, then read again each repetition; `openssl: n/a` and no baseline without it.
struct OpenSSLBaseline {
  /// The `-evp` algorithm (`sha256`, `chacha20`).
  let algorithm: String
  /// Whether the first probe gave a figure.
  let isAvailable: Bool

  init(evp algorithm: String) {
    self.algorithm = algorithm
    isAvailable = OpenSSLSpeed.megabytesPerSecond(evp: algorithm) != nil
  }

  /// The baseline's name in the report.
  var name: String { isAvailable ? "openssl speed -evp \(algorithm) (16 KiB)" : "openssl: n/a" }

  /// A report-only MB/s row of `module` against this baseline (`report the ratio`): SHA-256 and
  /// serialization against `sha256`, ChaCha20 against `chacha20`.
  func row(module: String, name: String, measured: @escaping () throws -> Double) -> Benchmark {
    Benchmark(
      module: module, name: name, unit: "MB/s", baselineName: self.name, target: "report the ratio",
      baseline: baseline, measured: measured, passes: { _ in nil })
  }

  /// One repetition of the baseline in MB/s, nil without openssl.
  var baseline: (() throws -> Double)? {
    guard isAvailable else { return nil }
    let algorithm = algorithm
    return { OpenSSLSpeed.megabytesPerSecond(evp: algorithm) ?? 0 }
  }
}
