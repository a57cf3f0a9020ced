import Foundation
import NostrEvent

/// Single workloads to run under a profiler (`--profile matcher|delivery|sha|verify|parse|serialize|breakdown|corpus|full|direct|batch`).
enum Profiling {
  static func run(_ name: String, quick: Bool) throws {
    switch name {
    case "matcher":
      // The matcher row's workload alone, sixty passes over its events (`NOSTRPUSH_PASSES` sets
      // another count; 0 times the setup alone). `NOSTRPUSH_ACCEPT` first builds the accept rows'
      // workloads, as the full row runs after them: with them alive the same passes run at about
      // 0.84 M pairs/s against 1.45 M without (the leases' small allocations land scattered over
      // a heap that has been through other work, and the matcher is bound by those cache misses).
      let accepts =
        ProcessInfo.processInfo.environment["NOSTRPUSH_ACCEPT"] != nil
        ? try [100, 10_000, 100_000].map { try AcceptWorkload(otherLeases: $0) } : []
      defer { for accept in accepts { accept.remove() } }
      for accept in accepts { _ = try accept.percentile(50, of: 400) }
      let workload = MatcherWorkload(leases: quick ? 10_000 : 100_000, events: 400)
      let passes = ProcessInfo.processInfo.environment["NOSTRPUSH_PASSES"].flatMap { Int($0) } ?? 60
      for _ in 0..<passes {
        // As the benchmark row runs it: the baseline just before each measured pass.
        if ProcessInfo.processInfo.environment["NOSTRPUSH_BASELINE"] != nil {
          _ = workload.filterPairsPerSecond()
        }
        print(Int(workload.matchedPairsPerSecond()))
      }
    case "delivery":
      // The delivery row's run alone: 10 000 pending wakes to the gateway fixture.
      print(Int(try blockingRun { try await DeliveryRun(wakes: quick ? 2_000 : 10_000).run() }))
    case "sha":
      let block = [UInt8](repeating: 0x61, count: 16 * 1024)
      var sink: UInt8 = 0
      for _ in 0..<(quick ? 2_000 : 20_000) { sink ^= NostrSHA256.hash(block)[0] }
      print(sink)
    case "verify", "parse":
      let corpus = try EventCorpus(count: quick ? 500 : 2_000)
      var valid = 0
      for _ in 0..<(name == "parse" ? 100 : (quick ? 2 : 10)) {
        for document in corpus.documents {
          guard let event = try? Event(json: document) else { continue }
          if name == "parse" || event.verify().isValid { valid += 1 }
        }
      }
      print(valid)
    case "batch":
      // Compare the CPU time of `batch` with `full` (same corpus and work, one core): any extra
      // CPU time is contention between BatchVerifier's workers.
      let corpus = try EventCorpus(count: 1_000)
      for _ in 0..<5 {
        let results = BatchVerifier.verify(jsonDocuments: corpus.documents)
        precondition(results.allSatisfy { (try? $0.get())?.isValid == true })
      }
    case "corpus", "full", "direct":
      // Compare `perf stat -e instructions:u` of full/direct against corpus (generation only).
      let corpus = try EventCorpus(count: 1_000)
      let decoded = DecodedSignatures(corpus.events)
      for _ in 0..<5 {
        if name == "full" { BenchmarkRegistry.verifyDocuments(corpus.documents[...]) }
        if name == "direct" { decoded.verifyAll() }
      }
    case "serialize":
      let corpus = try EventCorpus(count: 500)
      var total = 0
      for _ in 0..<2_000 {
        for event in corpus.events { total &+= event.canonicalBytes().count }
      }
      print(total)
    case "breakdown":
      let corpus = try EventCorpus(count: 2_000)
      let documents = corpus.documents
      let events = corpus.events
      for _ in 0..<3 {
        let parse = Stopwatch.seconds {
          for document in documents { _ = try? Event(json: document) }
        }
        let serialize = Stopwatch.seconds {
          for event in events { _ = event.canonicalBytes() }
        }
        let hash = Stopwatch.seconds {
          for event in events { _ = NostrSHA256.hash(event.canonicalBytes()) }
        }
        let verify = Stopwatch.seconds {
          for event in events { _ = event.verify() }
        }
        let micro = { (seconds: Double) in String(format: "%.2f µs", seconds / Double(documents.count) * 1e6)
        }
        print(
          "parse \(micro(parse))  serialize \(micro(serialize))  serialize+hash \(micro(hash))  "
            + "verify(parsed) \(micro(verify))  mean size \(Int(corpus.meanBytes)) B")
      }
    default:
      print("unknown profile \(name): sha, verify, parse, serialize, breakdown, corpus, full, direct, batch")
    }
  }
}
