import Foundation
import NostrHTTP
import NostrPushTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `nostr-push-stress --bare-urlsession ROUNDS`: whether Foundation's `URLSession`, alone, keeps
/// heap per request. One ephemeral session with a data delegate (as `URLSessionHTTPTransport` uses
/// it) sends rounds of 8 concurrent `GET /` to an in-process fixture relay that keeps no request
/// log, and malloc's in-use heap is printed every 2 000 rounds. No resolver, cache or verifier
/// runs, so growth here is Foundation's (Docs/Robustness.md, "Memory").
enum BareURLSessionProbe {
  static let requestsPerRound = 8

  static func run(rounds: Int) async throws {
    let server = RelayFixtureServer(
      data: RelayFixtureData(nip11: Array("{}".utf8)),
      configuration: RelayFixtureConfiguration(requestLogCapacity: 0))
    let url = try await server.start()
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let finisher = Finisher()
    let session = URLSession(configuration: configuration, delegate: finisher, delegateQueue: queue)
    var request = URLRequest(url: url)
    request.setValue("application/nostr+json", forHTTPHeaderField: "Accept")
    for round in 0...rounds {
      if round % 2_000 == 0 {
        print("after \(round * requestsPerRound) requests: heap in use \(heapInUseKiB()) KiB")
      }
      if round == rounds { break }
      for _ in 0..<requestsPerRound {
        finisher.group.enter()
        session.dataTask(with: request).resume()
      }
      finisher.group.wait()
    }
    session.invalidateAndCancel()
    await server.stop()
  }

  /// Counts finished tasks; bodies are dropped as they arrive. `DispatchGroup` is thread-safe.
  private final class Finisher: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let group = DispatchGroup()
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
      group.leave()
    }
  }
}
