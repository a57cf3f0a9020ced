/// The one strict RFC 8259 reader shared by the suite.
///
/// It keeps integers, floats, booleans and null apart, keeps object member order, refuses
/// duplicate member names, decodes `\u` escapes exactly (surrogate pairs into astral
/// characters, lone surrogates refused), refuses invalid UTF-8 and raw control characters in
/// strings, and bounds both nesting depth and input size. Everything a relay sends goes through
/// it, so it never trusts a length or a depth it has not checked.
public struct JSONReader: Sendable {
  /// The default nesting limit: deep enough for any Nostr message, shallow enough that the
  /// recursive descent cannot exhaust a thread's stack.
  public static let defaultMaxDepth = 64
  /// The default size limit for one document: 16 MiB, the largest event the suite accepts.
  public static let defaultMaxBytes = 16 * 1024 * 1024

  /// The deepest nesting of arrays and objects accepted (the root container is depth 1).
  package var maxDepth: Int
  /// The largest input accepted, in bytes.
  package var maxBytes: Int

  /// Creates a reader with the given bounds.
  public init(maxDepth: Int = JSONReader.defaultMaxDepth, maxBytes: Int = JSONReader.defaultMaxBytes) {
    self.maxDepth = maxDepth
    self.maxBytes = maxBytes
  }

  /// Reads one JSON document (surrounding whitespace allowed, nothing else after it).
  public func read(_ bytes: some Sequence<UInt8>) throws(JSONError) -> JSONValue {
    let result: Result<JSONValue, JSONError>? = bytes.withContiguousStorageIfAvailable { buffer in
      Result { () throws(JSONError) in try read(buffer: UnsafeRawBufferPointer(buffer)) }
    }
    if let result { return try result.get() }
    return try Array(bytes).withUnsafeBytes { buffer in
      Result { () throws(JSONError) in try read(buffer: buffer) }
    }.get()
  }

  /// Reads one JSON document from the UTF-8 of `text`.
  public func read(_ text: String) throws(JSONError) -> JSONValue {
    var text = text
    return try text.withUTF8 { buffer in
      Result { () throws(JSONError) in try read(buffer: UnsafeRawBufferPointer(buffer)) }
    }.get()
  }

  /// Reads one JSON document from raw bytes.
  package func read(buffer: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue {
    guard buffer.count <= maxBytes else {
      throw JSONError(
        code: .tooLarge, offset: maxBytes,
        message: "document of \(buffer.count) bytes is over the \(maxBytes)-byte limit")
    }
    var scanner = JSONScanner(bytes: buffer, maxDepth: maxDepth)
    return try scanner.readDocument()
  }
}
