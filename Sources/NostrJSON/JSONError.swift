import NostrPushCore

/// Why the strict reader refused a document, and where.
///
/// Equality compares the `code` and the `field` (the path) only, so a test can match a failure
/// without depending on the human-readable message or the exact byte offset.
public struct JSONError: NostrPushError {
  /// A stable, machine-readable reason.
  /// New codes may be added: switch over it with a `default`.
  public enum Code: String, Sendable, Hashable {
    /// Bytes that are not RFC 8259 JSON (bad token, unterminated string, trailing data …).
    case syntax
    /// Not valid UTF-8, or a `\u` escape that names a lone surrogate.
    case invalidUnicode = "invalid_unicode"
    /// Two members of one object have the same name.
    case duplicateKey = "duplicate_key"
    /// Arrays and objects nested deeper than the reader's limit.
    case tooDeep = "too_deep"
    /// The document is larger than the reader's limit.
    case tooLarge = "too_large"
  }

  /// The stable reason.
  public var code: Code
  /// Where the problem is: a dotted path with array indices (`push.keys[1].id`); nil for the root.
  public var field: String?
  /// The byte offset in the input at which the problem was found.
  public var offset: Int
  /// A human-readable explanation.
  public var message: String
  /// For `duplicate_key`, the repeated member name exactly as decoded (the path in `field` is
  /// ambiguous for a name holding `.` or `[`); nil otherwise.
  public var duplicateKey: String?

  /// Creates an error.
  public init(code: Code, field: String? = nil, offset: Int, message: String, duplicateKey: String? = nil) {
    self.code = code
    self.field = field
    self.offset = offset
    self.message = message
    self.duplicateKey = duplicateKey
  }

  public var description: String {
    let location = field.map { " at \($0)" } ?? ""
    return "\(message)\(location) (byte \(offset))"
  }

  /// This error with `component` put in front of its path (an object key or `[index]`).
  func prefixed(with component: PathComponent) -> JSONError {
    var copy = self
    let path = field ?? ""
    switch component {
    case .key(let key):
      copy.field = path.isEmpty || path.hasPrefix("[") ? key + path : key + "." + path
    case .index(let index):
      copy.field = path.isEmpty || path.hasPrefix("[") ? "[\(index)]" + path : "[\(index)]." + path
    }
    return copy
  }

  enum PathComponent {
    case key(String)
    case index(Int)
  }
}
