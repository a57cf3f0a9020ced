// Measures whether Foundation's URLSession, alone, keeps heap per request on Linux: one ephemeral
// session with a data delegate (as URLSessionTransport uses it) sends rounds of 8 concurrent GETs
// and prints malloc's in-use bytes (glibc `malloc_stats()`, "Total (incl. mmap)") every 2 000
// rounds. Nothing of NostrPushKit is linked. Used for Docs/Robustness.md ("Memory").
//
//   swift build -c release --product nostr-push
//   .build/release/nostr-push relay --data Fixtures/demo --port 48222 &
//   swiftc -O Scripts/urlsession-heap.swift -o /tmp/urlsession-heap
//   /tmp/urlsession-heap http://127.0.0.1:48222/ 8000
import Foundation
import Glibc

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// malloc's in-use KiB over every arena; `malloc_stats()` prints it on stderr, so stderr is
/// pointed at a scratch file for the call. The same reading as `heapInUseKiB()` in
/// `Sources/StressRunner/main.swift`, repeated here on purpose: this script links nothing of ours.
func heapInUseKiB() -> Int {
  guard let symbol = dlsym(nil, "malloc_stats") else { return -1 }
  let mallocStats = unsafeBitCast(symbol, to: (@convention(c) () -> Void).self)
  let path = NSTemporaryDirectory() + "urlsession-heap-\(getpid()).txt"
  let file = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0o600)
  guard file >= 0 else { return -1 }
  defer { unlink(path) }
  fflush(nil)
  let saved = dup(2)
  dup2(file, 2)
  mallocStats()
  fflush(nil)
  dup2(saved, 2)
  close(saved)
  close(file)
  guard let text = try? String(contentsOfFile: path, encoding: .utf8),
    let total = text.range(of: "Total (incl. mmap):"),
    let line = text[total.upperBound...].split(separator: "\n").first(where: { $0.hasPrefix("in use bytes") }),
    let bytes = line.split(separator: "=").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
  else { return -1 }
  return bytes / 1024
}

/// Counts finished tasks; bodies are dropped as they arrive.
final class Finisher: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  let group = DispatchGroup()
  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    group.leave()
  }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let url = URL(string: arguments[1]), let rounds = Int(arguments[2]), rounds > 0 else {
  print("usage: urlsession-heap URL ROUNDS")
  exit(2)
}
let configuration = URLSessionConfiguration.ephemeral
configuration.urlCache = nil
let queue = OperationQueue()
queue.maxConcurrentOperationCount = 1
let finisher = Finisher()
let session = URLSession(configuration: configuration, delegate: finisher, delegateQueue: queue)
for round in 0...rounds {
  if round % 2_000 == 0 { print("after \(round * 8) requests: heap in use \(heapInUseKiB()) KiB") }
  if round == rounds { break }
  for _ in 0..<8 {
    finisher.group.enter()
    session.dataTask(with: URLRequest(url: url)).resume()
  }
  finisher.group.wait()
}
