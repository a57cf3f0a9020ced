import Foundation

/// Writes a JSON Lines file of corpus events for memory measurements of `nostr-push verify`.
///
/// It signs up to 10 000 distinct events and repeats them in order to reach the requested
/// count, so a million-line file takes seconds, not a million signatures.
enum CorpusWriter {
  /// The most distinct events signed for one file.
  static let distinctEvents = 10_000

  static func write(count: Int, to path: String) throws {
    let corpus = try EventCorpus(count: min(count, distinctEvents))
    guard FileManager.default.createFile(atPath: path, contents: nil),
      let handle = FileHandle(forWritingAtPath: path)
    else {
      throw CocoaError(.fileWriteUnknown)
    }
    defer { try? handle.close() }
    var buffer: [UInt8] = []
    for index in 0..<count {
      buffer += corpus.documents[index % corpus.documents.count]
      buffer.append(0x0A)
      if buffer.count > 1 << 20 {
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
      }
    }
    try handle.write(contentsOf: buffer)
  }
}
