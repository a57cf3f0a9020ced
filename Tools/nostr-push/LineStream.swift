#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line handed out by `LineStream`.
enum StreamLine {
  /// The bytes of a line without its `\n` (valid only during the callback).
  case bytes(UnsafeRawBufferPointer)
  /// A line longer than the stream's limit; its bytes were discarded as they arrived.
  case oversized
}

/// Reads a file descriptor in fixed-size chunks and hands out one line at a time.
///
/// It never holds more than one line (and never one over `maxLineBytes`), so memory stays flat
/// however long the stream is; an oversized line is skipped without being buffered.
struct LineStream {
  /// The size of each `read(2)`.
  static let chunkSize = 64 * 1024
  /// A pending-line buffer larger than this is released after use rather than kept for reuse.
  static let retainedCapacity = 1024 * 1024

  let descriptor: Int32
  let maxLineBytes: Int

  /// Calls `body` for every line in order; `beforeRead` runs before each blocking read (to flush
  /// output). Throws `InputError` when reading fails.
  func forEachLine(beforeRead: () -> Void = {}, _ body: (StreamLine) -> Void) throws(InputError) {
    var pending: [UInt8] = []
    var discarding = false
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
    defer { chunk.deallocate() }
    while true {
      beforeRead()
      let count = read(descriptor, chunk.baseAddress, Self.chunkSize)
      if count < 0 {
        if errno == EINTR { continue }
        throw InputError(message: "read failed: \(String(cString: strerror(errno)))")
      }
      if count == 0 { break }
      let data = UnsafeRawBufferPointer(rebasing: chunk[0..<count])
      var start = 0
      while start < data.count {
        guard let newline = Self.newline(in: data, from: start) else {
          let rest = data.count - start
          if !discarding {
            if pending.count + rest > maxLineBytes {
              discarding = true
              pending = []
            } else {
              pending.append(contentsOf: data[start...])
            }
          }
          break
        }
        let piece = UnsafeRawBufferPointer(rebasing: data[start..<newline])
        start = newline + 1
        if discarding {
          discarding = false
          body(.oversized)
        } else if pending.isEmpty {
          body(piece.count > maxLineBytes ? .oversized : .bytes(piece))
        } else if pending.count + piece.count > maxLineBytes {
          pending = []
          body(.oversized)
        } else {
          pending.append(contentsOf: piece)
          pending.withUnsafeBytes { body(.bytes($0)) }
          release(&pending)
        }
      }
    }
    if discarding {
      body(.oversized)
    } else if !pending.isEmpty {
      pending.withUnsafeBytes { body(.bytes($0)) }
    }
  }

  /// The index of the first `\n` at or after `start`.
  private static func newline(in data: UnsafeRawBufferPointer, from start: Int) -> Int? {
    guard let found = memchr(data.baseAddress! + start, 0x0A, data.count - start) else { return nil }
    return UnsafeRawPointer(found) - data.baseAddress!
  }

  private func release(_ pending: inout [UInt8]) {
    if pending.capacity > Self.retainedCapacity {
      pending = []
    } else {
      pending.removeAll(keepingCapacity: true)
    }
  }
}

/// Reading the input failed (a file that cannot be opened or read).
struct InputError: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// Opens and reads command inputs: a file path, or standard input for `-` or no path.
enum CommandInput {
  /// The descriptor for `path` (standard input for nil or `-`).
  static func open(_ path: String?) throws(InputError) -> Int32 {
    guard let path, path != "-" else { return STDIN_FILENO }
    #if canImport(Glibc)
    let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    #else
    let descriptor = Darwin.open(path, O_RDONLY | O_CLOEXEC)
    #endif
    guard descriptor >= 0 else {
      throw InputError(message: "cannot open \(path): \(String(cString: strerror(errno)))")
    }
    return descriptor
  }

  /// The whole input of `descriptor` when it is at most `limit` bytes; throws as soon as it is
  /// known to be larger (from the file size, or once more than `limit` bytes arrived).
  static func readWhole(_ descriptor: Int32, limit: Int) throws(InputError) -> [UInt8] {
    var status = stat()
    if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, Int(status.st_size) > limit {
      throw InputError(message: "the document is \(status.st_size) bytes, over the \(limit)-byte limit")
    }
    var output: [UInt8] = []
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: LineStream.chunkSize, alignment: 16)
    defer { chunk.deallocate() }
    while true {
      let count = read(descriptor, chunk.baseAddress, LineStream.chunkSize)
      if count < 0 {
        if errno == EINTR { continue }
        throw InputError(message: "read failed: \(String(cString: strerror(errno)))")
      }
      if count == 0 { return output }
      guard output.count + count <= limit else {
        throw InputError(message: "the document is over the \(limit)-byte limit")
      }
      output.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
    }
  }

  /// The first `limit` bytes of `descriptor`'s input (all of it when shorter); nothing after
  /// them is read, so a caller can judge an over-long input by its start.
  static func readPrefix(_ descriptor: Int32, limit: Int) throws(InputError) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: limit)
    var filled = 0
    while filled < limit {
      let count = output.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, limit - filled) }
      if count < 0 {
        if errno == EINTR { continue }
        throw InputError(message: "read failed: \(String(cString: strerror(errno)))")
      }
      if count == 0 { break }
      filled += count
    }
    output.removeLast(limit - filled)
    return output
  }
}

/// Collects output bytes and writes them to standard output in large blocks.
final class OutputBuffer {
  /// Output is written once this many bytes are waiting.
  static let flushThreshold = 64 * 1024
  private var bytes: [UInt8] = []

  init() {
    bytes.reserveCapacity(Self.flushThreshold + 1024)
  }

  /// Appends bytes that already end in a newline (a batch of answer lines).
  func append(_ lines: [UInt8]) {
    appending { $0 += lines }
  }

  /// Lets `body` append whole lines straight into the waiting bytes (no copy in between), then
  /// writes them out once the threshold is reached.
  func appending<Result>(_ body: (inout [UInt8]) -> Result) -> Result {
    let result = body(&bytes)
    if bytes.count >= Self.flushThreshold { flush() }
    return result
  }

  /// Writes everything waiting to standard output.
  func flush() {
    var offset = 0
    bytes.withUnsafeBytes { raw in
      while offset < raw.count {
        let written = write(STDOUT_FILENO, raw.baseAddress! + offset, raw.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return
        }
        offset += written
      }
    }
    bytes.removeAll(keepingCapacity: true)
  }
}
