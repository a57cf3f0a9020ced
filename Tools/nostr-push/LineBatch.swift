/// The `--jsonl` lines read ahead and verified together, copied into one reused buffer.
///
/// A batch is full at `maxLines` lines or `maxBytes` bytes of line data (a single line may be up
/// to the 16 MiB line limit on its own), so read-ahead memory is bounded whatever the stream.
///
/// A class, so that a batch handed back by the workers is emptied in place and keeps its buffer
/// (a value copy still held somewhere would make `removeAll` allocate a fresh buffer, whose
/// pages then fault in again: 3 000 extra page faults over 20 000 events when it was a struct).
/// `@unchecked Sendable`: the reading thread fills and empties a batch only while no worker has
/// it (before `OrderedChunkStream.submit`, after the stream hands it back); the workers only read.
final class LineBatch: @unchecked Sendable {
  /// The most lines in one batch (two batches are in flight at once besides the one being read,
  /// see `VerifyPipeline`).
  static let maxLines = 512
  /// The most lines one worker takes at a time: a batch is 64 chunks, enough for the chunks to
  /// even out the workers at the end of the input.
  static let linesPerChunk = 8
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

  /// An empty batch with room for `maxBytes` of lines, so that filling it never copies what it
  /// holds (the pages are touched only as lines arrive).
  init() {
    storage.reserveCapacity(Self.maxBytes)
    entries.reserveCapacity(Self.maxLines)
  }

  /// The number of lines waiting.
  var count: Int { entries.count }
  /// Whether no line is waiting.
  var isEmpty: Bool { entries.isEmpty }
  /// Whether the batch should be verified before another line is added.
  var isFull: Bool { entries.count >= Self.maxLines || storage.count >= Self.maxBytes }

  /// Adds a copy of one line.
  func append(_ bytes: UnsafeRawBufferPointer) {
    let start = storage.count
    storage.append(contentsOf: bytes)
    entries.append(.line(start..<storage.count))
  }

  /// Adds a line that was over the limit and skipped.
  func appendOversized() {
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
  func removeAll() {
    if storage.capacity > Self.retainedCapacity {
      storage = []
      storage.reserveCapacity(Self.maxBytes)
    } else {
      storage.removeAll(keepingCapacity: true)
    }
    entries.removeAll(keepingCapacity: true)
  }
}
