import NostrEvent

/// Answers `--jsonl` lines in input order on exactly `threads` workers.
///
/// With one thread there is no batch: each line is verified on the calling thread where
/// `LineStream` hands it over, and its answer written straight into the output buffer, so no
/// line is copied. With more, the lines are copied into batches that stream through an
/// `OrderedChunkStream`: `threads − 1` parked worker threads verify chunks of 8 lines from one
/// queue that runs across batches, and the reading thread is the last worker. It reads the next
/// batch while the others verify, and once two batches are unanswered it verifies chunks too and
/// writes the answers that are ready, in order. No thread is created per batch and no batch ends
/// at a join (the previous design, one verify thread that started and joined a thread per batch
/// while the reading thread waited, left one worker alone for about a quarter of the run:
/// Docs/Performance.md). Memory stays bounded by three batches (two unanswered, one being read)
/// and their answers.
final class VerifyPipeline {
  /// Answer lines for one chunk of a batch and whether every one was a valid event.
  typealias Answers = (lines: [UInt8], valid: Bool)

  private let output: OutputBuffer
  private var filling = LineBatch()
  /// Answered batches, emptied, kept for reuse.
  private var spares: [LineBatch] = []
  private let stream: OrderedChunkStream<LineBatch, EventDocumentVerifier, Answers>?
  /// The verifier of the one-thread path (nil with more threads: each worker has its own).
  private let verifier: EventDocumentVerifier?
  /// Whether every line answered so far was a valid event.
  private(set) var allValid = true

  init(threads: Int, output: OutputBuffer) {
    self.output = output
    if threads > 1 {
      stream = OrderedChunkStream(
        threads: threads, batchesInFlight: 2, chunkSize: LineBatch.linesPerChunk,
        state: { EventDocumentVerifier() }, transform: VerifyCommand.answers)
      verifier = nil
    } else {
      stream = nil
      verifier = EventDocumentVerifier()
    }
  }

  /// Whether lines were read that are not answered yet.
  var hasPendingLines: Bool { !filling.isEmpty || stream?.isEmpty == false }

  /// Adds a copy of one line; a full batch goes to the workers. With one thread the line is
  /// answered at once instead.
  func append(_ bytes: UnsafeRawBufferPointer) {
    if let verifier { return answer(bytes, with: verifier) }
    filling.append(bytes)
    if filling.isFull { submit() }
  }

  /// Adds a line that was over the limit and skipped.
  func appendOversized() {
    if let verifier { return answer(nil, with: verifier) }
    filling.appendOversized()
    if filling.isFull { submit() }
  }

  /// The one-thread path: verifies `line` (nil when oversized) and writes its answer.
  private func answer(_ line: UnsafeRawBufferPointer?, with verifier: EventDocumentVerifier) {
    let valid = output.appending { VerifyCommand.appendAnswer(for: line, verifier: verifier, to: &$0) }
    allValid = allValid && valid
  }

  /// Answers every line read so far and writes the answers.
  func drain() {
    guard let stream else { return }
    if !filling.isEmpty { submit() }
    stream.drain(deliver: write, recycle: recycle)
  }

  /// Hands the filled batch to the workers (working on it too once two are unanswered).
  private func submit() {
    guard let stream else { return }
    let batch = filling
    filling = spares.popLast() ?? LineBatch()
    stream.submit(batch, count: batch.count, deliver: write, recycle: recycle)
  }

  private func write(_ answers: Answers) {
    output.append(answers.lines)
    allValid = allValid && answers.valid
  }

  private func recycle(_ batch: LineBatch) {
    batch.removeAll()
    spares.append(batch)
  }
}
