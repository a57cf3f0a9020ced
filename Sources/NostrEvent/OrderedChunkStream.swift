import Foundation
import NostrPushCore

/// Maps a stream of batches, chunk by chunk, on exactly `threads` workers (the calling thread and
/// `threads − 1` parked threads) and hands the outputs back in input order.
///
/// `nostr-push verify --jsonl` reads its lines into batches and submits them here. Unlike a
/// batch-at-a-time map, nothing waits at the end of a batch: the workers take chunks from one
/// queue across batch boundaries, so a worker that finishes early (or one the host preempts)
/// holds no one up while later work is queued, and the caller reads the next batch while the
/// other workers verify. The caller is a worker too, but only when `batchesInFlight` batches
/// are unanswered: it then takes chunks itself (or waits for the oldest output) and delivers
/// outputs in order, so reading, writing and verifying share the caller's core without an
/// extra thread, and memory stays bounded by `batchesInFlight` batches and their outputs.
///
/// Each worker keeps a `State` of its own for the whole stream (made on its thread by `state`):
/// a verifier with its buffer, say. The stream is driven from one thread (the caller's); its
/// workers stop when it is closed or released.
package final class OrderedChunkStream<Batch: Sendable, State, Output: Sendable> {
  /// What a worker computes for the items `range` of `batch`.
  package typealias Transform =
    @Sendable (_ state: inout State, _ batch: Batch, _ range: Range<Int>) -> Output

  /// The most items in one chunk (a batch's last chunk may hold fewer).
  package let chunkSize: Int
  /// How many submitted batches may be unanswered before `submit` works on them itself.
  package let batchesInFlight: Int

  private let shared: Shared
  private let group: WorkerGroup
  private let transform: Transform
  private var callerState: State
  /// Batches submitted and not yet recycled (only the caller's thread touches it).
  private var unanswered = 0
  /// Whether `close()` waited for the workers.
  private var waited = false

  /// Starts `threads − 1` workers from `pool` (the calling thread is the last one) that wait
  /// for chunks.
  package init(
    threads: Int, batchesInFlight: Int = 2, chunkSize: Int, pool: ParkedThreads = .shared,
    state: @escaping @Sendable () -> State, transform: @escaping Transform
  ) {
    self.chunkSize = max(1, chunkSize)
    self.batchesInFlight = max(1, batchesInFlight)
    self.transform = transform
    let shared = Shared()
    self.shared = shared
    callerState = state()
    group = pool.start(max(1, threads) - 1) { _ in
      var workerState = state()
      shared.work(state: &workerState, transform: transform)
    }
  }

  deinit {
    close()
  }

  /// Whether every submitted batch has been answered (its outputs delivered).
  package var isEmpty: Bool { unanswered == 0 }

  /// How many chunks, outputs and batches the stream keeps track of (taken and delivered ones
  /// included until they are dropped): bounded by `batchesInFlight`, however long the stream.
  package var retainedEntries: Int { shared.retainedEntries }

  /// Queues the items `0..<count` of `batch`. Then, while `batchesInFlight` batches are
  /// unanswered, works on queued chunks itself and delivers finished outputs in input order:
  /// `deliver` gets each chunk's output, `recycle` each batch once all its outputs were delivered
  /// (so that its buffers can be reused), in the order the batches were submitted. A worker may
  /// still hold a copy of a value-type batch for a moment after its last output is stored, so a
  /// batch whose buffers are to be reused is best a class.
  package func submit(
    _ batch: Batch, count: Int, deliver: (Output) -> Void, recycle: (Batch) -> Void
  ) {
    let chunks = (max(0, count) + chunkSize - 1) / chunkSize
    shared.enqueue(
      batch, ranges: (0..<chunks).map { ($0 * chunkSize)..<min(count, ($0 + 1) * chunkSize) })
    unanswered += 1
    while unanswered >= batchesInFlight { step(deliver: deliver, recycle: recycle) }
  }

  /// Works on and delivers everything submitted, as `submit` does, until every batch is answered.
  package func drain(deliver: (Output) -> Void, recycle: (Batch) -> Void) {
    while unanswered > 0 { step(deliver: deliver, recycle: recycle) }
  }

  /// Stops the workers and waits for them to finish the chunks they hold (outputs not delivered
  /// yet are dropped). Called on release; closing twice does nothing.
  package func close() {
    guard !waited else { return }
    stop()
    group.wait()
    waited = true
  }

  /// Tells the workers to take no further chunk, without waiting for them (`close()` waits).
  package func stop() {
    shared.close()
  }

  /// Delivers the outputs that are ready; with none, works on one queued chunk, or with none
  /// queued waits until the oldest output is ready.
  private func step(deliver: (Output) -> Void, recycle: (Batch) -> Void) {
    var outputs: [Output] = []
    var answered: [Batch] = []
    if case let (chunk, batch)? = shared.next(outputs: &outputs, answered: &answered) {
      let output = transform(&callerState, batch, chunk.range)
      shared.store(output, for: chunk)
      return
    }
    for output in outputs { deliver(output) }
    unanswered -= answered.count
    for batch in answered { recycle(batch) }
  }

  /// The queue and the outputs, shared with the workers.
  ///
  /// Chunks are numbered across batches in submission order; `outputs` holds the outputs of the
  /// chunks from number `outputsBase` on (those before `delivered` already handed out), and
  /// `batches` from `batchHead` on the batches not yet answered, each with the number just past
  /// its last chunk (an answered batch is moved out to the caller). `@unchecked Sendable`: every stored property is read and
  /// written with `condition` locked.
  private final class Shared: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [QueuedChunk] = []
    private var queueHead = 0
    private var outputs: [Output?] = []
    private var outputsBase = 0
    private var delivered = 0
    private var batches: [(batch: Batch?, end: Int)] = []
    private var batchHead = 0
    private var nextChunk = 0
    private var closed = false
    private var callerWaits = false

    func enqueue(_ batch: Batch, ranges: [Range<Int>]) {
      condition.lock()
      defer { condition.unlock() }
      // The chunks taken are dropped once they are the larger part, so the queue holds at
      // most about two batches' chunks however long the stream (a queue that was never empty
      // when a batch arrived grew by 4 MiB over 1 000 000 events).
      if queueHead > 0, queueHead * 2 >= queue.count {
        queue.removeFirst(queueHead)
        queueHead = 0
      }
      let batchNumber = batches.count
      for range in ranges {
        queue.append(QueuedChunk(number: nextChunk, batch: batchNumber, range: range))
        nextChunk += 1
      }
      outputs.append(contentsOf: repeatElement(nil, count: ranges.count))
      batches.append((batch, nextChunk))
      condition.broadcast()
    }

    /// The entries kept in the queue, the outputs and the batches.
    var retainedEntries: Int {
      condition.lock()
      defer { condition.unlock() }
      return queue.count + outputs.count + batches.count
    }

    /// Takes the next queued chunk and a copy of its batch; the lock is held.
    private func take() -> (QueuedChunk, Batch)? {
      guard queueHead < queue.count else { return nil }
      let chunk = queue[queueHead]
      queueHead += 1
      return (chunk, batches[chunk.batch].batch!)
    }

    /// The caller's next step: the outputs ready in order (and the batches they answer), else
    /// a chunk to work on, else (waiting for it) the oldest output.
    func next(outputs ready: inout [Output], answered: inout [Batch]) -> (QueuedChunk, Batch)? {
      condition.lock()
      defer { condition.unlock() }
      while true {
        while true {
          // A batch is answered once every output before its end was delivered (at once for
          // an empty batch), and batches are answered in the order they were submitted.
          if batchHead < batches.count, batches[batchHead].end == outputsBase + delivered {
            answered.append(batches[batchHead].batch!)
            batches[batchHead].batch = nil
            batchHead += 1
          } else if delivered < outputs.count, let output = outputs[delivered] {
            ready.append(output)
            outputs[delivered] = nil
            delivered += 1
          } else {
            break
          }
        }
        if !ready.isEmpty || !answered.isEmpty {
          compact()
          return nil
        }
        if let work = take() { return work }
        callerWaits = true
        condition.wait()
        callerWaits = false
      }
    }

    /// Drops the delivered outputs and answered batches from the front of their arrays once
    /// they are the larger part (so each array stays within two batches' worth).
    private func compact() {
      if delivered * 2 >= outputs.count {
        outputs.removeFirst(delivered)
        outputsBase += delivered
        delivered = 0
      }
      if batchHead * 2 >= batches.count, batchHead > 0 {
        batches.removeFirst(batchHead)
        for index in queueHead..<queue.count { queue[index].batch -= batchHead }
        batchHead = 0
      }
    }

    func store(_ output: Output, for chunk: QueuedChunk) {
      condition.lock()
      defer { condition.unlock() }
      storeLocked(output, for: chunk)
    }

    /// Records a chunk's output (the lock is held) and wakes the caller when it waits for it.
    private func storeLocked(_ output: Output, for chunk: QueuedChunk) {
      let position = chunk.number - outputsBase
      outputs[position] = output
      if callerWaits, position == delivered { condition.broadcast() }
    }

    /// A worker's loop: takes chunks until the stream closes.
    func work(state: inout State, transform: Transform) {
      condition.lock()
      while !closed {
        guard case let (chunk, batch)? = take() else {
          condition.wait()
          continue
        }
        condition.unlock()
        let output = transform(&state, batch, chunk.range)
        condition.lock()
        storeLocked(output, for: chunk)
      }
      condition.unlock()
    }

    /// Marks the stream closed and wakes the workers.
    func close() {
      condition.lock()
      defer { condition.unlock() }
      closed = true
      condition.broadcast()
    }
  }
}

/// One queued range of a batch: the chunk's number in the stream and its batch's place in
/// `Shared.batches`.
private struct QueuedChunk: Sendable {
  var number: Int
  var batch: Int
  var range: Range<Int>
}
