import Dispatch

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
/// Memory stays bounded by two batches (and their answers). With one thread everything runs on
/// the calling thread, one batch at a time.
final class VerifyPipeline {
  /// One batch handed to the workers, and its answers once they are done.
  private final class InFlight: @unchecked Sendable {
    // `@unchecked Sendable`: the reading thread touches `batch` and `answer` only before
    // handing it over and after `done` was signalled; the worker only in between.
    var batch: LineBatch
    var answer: (lines: [UInt8], valid: Bool) = ([], true)
    let done = DispatchSemaphore(value: 0)

    init(_ batch: LineBatch) {
      self.batch = batch
    }
  }

  private let threads: Int
  private let output: OutputBuffer
  private var filling = LineBatch()
  private var spare = LineBatch()
  private var inFlight: InFlight?
  /// Whether every line answered so far was a valid event.
  private(set) var allValid = true

  init(threads: Int, output: OutputBuffer) {
    self.threads = threads
    self.output = output
  }

  /// Whether lines were read that are not answered yet.
  var hasPendingLines: Bool { !filling.isEmpty || inFlight != nil }

  /// Adds a copy of one line; a full batch goes to the workers.
  func append(_ bytes: UnsafeRawBufferPointer) {
    filling.append(bytes)
    if filling.isFull { dispatch() }
  }

  /// Adds a line that was over the limit and skipped.
  func appendOversized() {
    filling.appendOversized()
    if filling.isFull { dispatch() }
  }

  /// Answers every line read so far (waiting for the batch in flight) and writes the answers.
  func drain() {
    finishInFlight()
    guard !filling.isEmpty else { return }
    write(VerifyCommand.verify(filling, threads: threads))
    filling.removeAll()
  }

  /// Starts the workers on the filled batch after writing the answers of the one before it.
  private func dispatch() {
    finishInFlight()
    guard threads > 1 else {
      drain()
      return
    }
    let work = InFlight(filling)
    filling = spare
    spare = LineBatch()
    let threads = self.threads
    DispatchQueue.global().async {
      work.answer = VerifyCommand.verify(work.batch, threads: threads)
      work.done.signal()
    }
    inFlight = work
  }

  private func finishInFlight() {
    guard let work = inFlight else { return }
    work.done.wait()
    inFlight = nil
    write(work.answer)
    work.batch.removeAll()
    spare = work.batch
  }

  private func write(_ answer: (lines: [UInt8], valid: Bool)) {
    output.append(answer.lines)
    allValid = allValid && answer.valid
  }
}
