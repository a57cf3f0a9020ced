#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a command's input from a file descriptor in chunks, holding at most one bounded line.
///
/// `nip19 decode` answers every line, so a line past the bound is reported as `.tooLong` and its
/// bytes are dropped as they arrive instead of being buffered.
struct Nip19InputReader {
  /// The longest line (or single document) kept in memory: 16 MiB, as `cli.md` sets.
  static let maxLineBytes = 16 * 1024 * 1024

  /// How many bytes one read asks for.
  static let chunkBytes = 64 * 1024

  /// One line of input.
  enum Line: Equatable {
    /// The line's bytes without its newline.
    case text([UInt8])
    /// A line longer than the bound; its bytes were skipped.
    case tooLong
  }

  private let descriptor: Int32
  private let maxLineBytes: Int
  private var buffer: [UInt8] = []
  private var chunk = [UInt8](repeating: 0, count: Nip19InputReader.chunkBytes)
  private var start = 0
  private var scanned = 0
  private var atEnd = false

  /// Reads from `descriptor` (standard input by default), keeping lines of at most `maxLineBytes`.
  init(descriptor: Int32 = 0, maxLineBytes: Int = Nip19InputReader.maxLineBytes) {
    self.descriptor = descriptor
    self.maxLineBytes = maxLineBytes
  }

  /// The next line, or nil at the end of input.
  mutating func nextLine() -> Line? {
    var skipping = false
    while true {
      if let newline = newlineIndex() {
        defer {
          start = newline + 1
          scanned = start
        }
        if skipping || newline - start > maxLineBytes { return .tooLong }
        return .text(Array(buffer[start..<newline]))
      }
      scanned = buffer.count
      if scanned - start > maxLineBytes {
        skipping = true
        buffer.removeAll(keepingCapacity: true)
        start = 0
        scanned = 0
      }
      guard fill() else {
        if skipping { return .tooLong }
        guard start < buffer.count else { return nil }
        defer { start = buffer.count }
        return .text(Array(buffer[start...]))
      }
    }
  }

  /// The whole input, or nil as soon as it passes the bound (the rest is left unread).
  mutating func readAll() -> [UInt8]? {
    while fill() {
      if buffer.count - start > maxLineBytes { return nil }
    }
    return Array(buffer[start...])
  }

  /// The index of the first newline at or after `scanned`, if any.
  private func newlineIndex() -> Int? {
    guard scanned < buffer.count else { return nil }
    return buffer.withUnsafeBytes { bytes -> Int? in
      guard let found = memchr(bytes.baseAddress! + scanned, 0x0A, bytes.count - scanned) else { return nil }
      return bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
    }
  }

  /// Appends one chunk to the buffer; false at the end of input or on a read error.
  private mutating func fill() -> Bool {
    guard !atEnd else { return false }
    if start > 0 && start >= buffer.count / 2 {
      buffer.removeFirst(start)
      scanned -= start
      start = 0
    }
    var count: Int
    repeat {
      count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    } while count < 0 && errno == EINTR
    guard count > 0 else {
      atEnd = true
      return false
    }
    buffer.append(contentsOf: chunk[0..<count])
    return true
  }
}
