/// Why the strict reader refused a document, and where.
///
/// Equality compares the `code` and the `path` only, so a test can match a failure without
/// depending on the human-readable reason or the exact byte offset.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A stable, machine-readable reason.
  public enum Code: String, Sendable, Hashable {
    /// Bytes that are not RFC 8259 JSON (bad token, unterminated string, trailing data …).
    case syntax
    /// Not valid UTF-8, or a `\u` escape that names a lone surrogate.
    case invalidUnicode
    /// Two members of one object have the same name.
    case duplicateKey
    /// Arrays and objects nested deeper than the reader's limit.
    case tooDeep
    /// The document is larger than the reader's limit.
    case tooLarge
  }

  /// The stable reason.
  public var code: Code
  /// Where the problem is: a dotted path with array indices (`push.keys[1].id`); empty for the root.
  public var path: String
  /// The byte offset in the input at which the problem was found.
  public var offset: Int
  /// A human-readable explanation.
  public var reason: String
  /// For `duplicateKey`, the repeated member name exactly as decoded (the path alone is
  /// ambiguous for a name holding `.` or `[`); nil otherwise.
  public var duplicateKey: String?

  /// Creates an error.
  public init(code: Code, path: String = "", offset: Int, reason: String, duplicateKey: String? = nil) {
    self.code = code
    self.path = path
    self.offset = offset
    self.reason = reason
    self.duplicateKey = duplicateKey
  }

  public var description: String {
    let location = path.isEmpty ? "" : " at \(path)"
    return "\(reason)\(location) (byte \(offset))"
  }

  public static func == (lhs: JSONError, rhs: JSONError) -> Bool {
    lhs.code == rhs.code && lhs.path == rhs.path
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(path)
  }

  /// This error with `component` put in front of its path (an object key or `[index]`).
  func prefixed(with component: PathComponent) -> JSONError {
    var copy = self
    switch component {
    case .key(let key):
      copy.path = path.isEmpty || path.hasPrefix("[") ? key + path : key + "." + path
    case .index(let index):
      copy.path = path.isEmpty || path.hasPrefix("[") ? "[\(index)]" + path : "[\(index)]." + path
    }
    return copy
  }

  enum PathComponent {
    case key(String)
    case index(Int)
  }
}
