import Dispatch
import Foundation
import NostrEvent

/// The `--jsonl` lines read ahead and verified together, copied into one reused buffer.
///
/// A batch is full at `maxLines` lines or `maxBytes` bytes of line data (a single line may be up
/// to the 16 MiB line limit on its own), so read-ahead memory is bounded whatever the stream.
struct LineBatch: Sendable {
  /// The most lines in one batch: enough to keep every core busy between two batches (two
  /// batches are in flight at once, see `VerifyPipeline`).
  static let maxLines = 512
  /// The line data after which a batch is full, whatever its line count.
  static let maxBytes = 2 * 1024 * 1024
  /// A buffer grown larger than this (by a long line) is released after use rather than kept.
  static let retainedCapacity = 2 * maxBytes

  private enum Entry: Sendable {
    case line(Range<Int>)
    case oversized
  }

  private var storage: [UInt8] = []
  private var entries: [Entry] = []

  /// The number of lines waiting.
  var count: Int { entries.count }
  /// Whether no line is waiting.
  var isEmpty: Bool { entries.isEmpty }
  /// Whether the batch should be verified before another line is added.
  var isFull: Bool { entries.count >= Self.maxLines || storage.count >= Self.maxBytes }

  /// Adds a copy of one line.
  mutating func append(_ bytes: UnsafeRawBufferPointer) {
    let start = storage.count
    storage.append(contentsOf: bytes)
    entries.append(.line(start..<storage.count))
  }

  /// Adds a line that was over the limit and skipped.
  mutating func appendOversized() {
    entries.append(.oversized)
  }

  /// Calls `body` with the bytes of line `index`, or nil for an oversized line.
  func withLine<Result>(_ index: Int, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
    switch entries[index] {
    case .oversized:
      return body(nil)
    case .line(let range):
      return storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
  }

  /// Empties the batch, keeping its buffers for the next one unless a long line grew them.
  mutating func removeAll() {
    if storage.capacity > Self.retainedCapacity {
      storage = []
    } else {
      storage.removeAll(keepingCapacity: true)
    }
    entries.removeAll(keepingCapacity: true)
  }
}

/// Batches `--jsonl` lines and keeps two batches in flight: while the workers verify one batch,
/// the reading thread fills the next; answers are written in input order.
///
/// Memory stays bounded by two batches (and their answers). With one thread there is no batch:
/// each line is verified on the calling thread where `LineStream` hands it over, and its answer
/// written straight into the output buffer, so no line is copied. With more, one dedicated thread (not one of
/// Dispatch's: the reading thread, blocked in `read` or waiting here, already holds one of those
/// as far as Dispatch can tell) takes each batch and spreads it over the workers with
/// `BatchVerifier`, so that every core verifies while the reading thread reads.
final class VerifyPipeline {
  /// The dedicated thread and the one batch it works on.
  private final class Worker: @unchecked Sendable {
    // `@unchecked Sendable`: the reading thread touches `batch` and `answer` only while the
    // worker waits for `start` (before signalling it, after `done`); the worker only in between.
    var batch = LineBatch()
    var answer: (chunks: [[UInt8]], valid: Bool) = ([], true)
    var stopping = false
    let start = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)

    init(threads: Int) {
      let thread = Thread { [self] in
        while true {
          start.wait()
          if stopping { return }
          answer = VerifyCommand.verify(batch, threads: threads)
          done.signal()
        }
      }
      thread.name = "nostr-push verify"
      thread.start()
    }

    func stop() {
      stopping = true
      start.signal()
    }
  }

  private let output: OutputBuffer
  private var filling = LineBatch()
  private let worker: Worker?
  /// The verifier of the one-thread path (nil with more threads: each worker has its own).
  private let verifier: EventDocumentVerifier?
  private var busy = false
  /// Whether every line answered so far was a valid event.
  private(set) var allValid = true

  init(threads: Int, output: OutputBuffer) {
    self.output = output
    worker = threads > 1 ? Worker(threads: threads) : nil
    verifier = threads > 1 ? nil : EventDocumentVerifier()
  }

  deinit {
    worker?.stop()
  }

  /// Whether lines were read that are not answered yet.
  var hasPendingLines: Bool { !filling.isEmpty || busy }

  /// Adds a copy of one line; a full batch goes to the workers. With one thread the line is
  /// answered at once instead.
  func append(_ bytes: UnsafeRawBufferPointer) {
    if let verifier { return answer(bytes, with: verifier) }
    filling.append(bytes)
    if filling.isFull { dispatch() }
  }

  /// Adds a line that was over the limit and skipped.
  func appendOversized() {
    if let verifier { return answer(nil, with: verifier) }
    filling.appendOversized()
    if filling.isFull { dispatch() }
  }

  /// The one-thread path: verifies `line` (nil when oversized) and writes its answer.
  private func answer(_ line: UnsafeRawBufferPointer?, with verifier: EventDocumentVerifier) {
    let valid = output.appending { VerifyCommand.appendAnswer(for: line, verifier: verifier, to: &$0) }
    allValid = allValid && valid
  }

  /// Answers every line read so far (waiting for the batch in flight) and writes the answers.
  func drain() {
    if !filling.isEmpty { dispatch() }
    finishInFlight()
  }

  /// Hands the filled batch to the worker after writing the answers of the one before it.
  private func dispatch() {
    guard let worker else { return }
    finishInFlight()
    swap(&filling, &worker.batch)
    busy = true
    worker.start.signal()
  }

  private func finishInFlight() {
    guard let worker, busy else { return }
    worker.done.wait()
    busy = false
    write(worker.answer)
    worker.answer = ([], true)
    worker.batch.removeAll()
  }

  private func write(_ answer: (chunks: [[UInt8]], valid: Bool)) {
    for chunk in answer.chunks { output.append(chunk) }
    allValid = allValid && answer.valid
  }
}
