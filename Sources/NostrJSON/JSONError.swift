@_exported import NostrPushCore

/// Why the strict reader refused a document, and where.
///
/// `field` is the dotted path of the failing value (`push.keys[1].id`), nil at the top level; a
/// member whose name is empty is written `""` in it, so that name never reads as "no path".
/// Equality compares the `code` and the `field` (the path) only, so a test can match a failure
/// without depending on the human-readable message or the exact byte offset.
public typealias JSONError = DomainError<JSONErrorDomain>

/// The error domain of `JSONError`: its codes are the static members below.
public enum JSONErrorDomain: ErrorDomain {
  /// Where the input failed, and the member name of a duplicate.
  public typealias Detail = JSONErrorLocation

}

extension ErrorCode where Domain == JSONErrorDomain {
  /// Bytes that are not RFC 8259 JSON (bad token, unterminated string, trailing data …).
  public static var syntax: Self { Self("syntax") }
  /// Not valid UTF-8, or a `\u` escape that names a lone surrogate.
  public static var invalidUnicode: Self { Self("invalid_unicode") }
  /// Two members of one object have the same name.
  public static var duplicateKey: Self { Self("duplicate_key") }
  /// Arrays and objects nested deeper than the reader's limit.
  public static var tooDeep: Self { Self("too_deep") }
  /// The document is larger than the reader's limit.
  public static var tooLarge: Self { Self("too_large") }
}

/// Where a JSON input failed: the byte offset, and for `duplicate_key` the repeated member name.
public struct JSONErrorLocation: Sendable, Hashable {
  /// The byte offset in the input at which the problem was found.
  package var offset: Int
  /// For `duplicate_key`, the repeated member name exactly as decoded (the path in `field` is
  /// ambiguous for a name holding `.` or `[`); nil otherwise.
  package var duplicateKey: String?
}

extension DomainError where Domain == JSONErrorDomain {
  /// An error at a byte offset of the input, with the repeated name of a duplicate member.
  package init(code: Code, field: String? = nil, offset: Int, message: String, duplicateKey: String? = nil) {
    self.init(
      code: code, field: field, message: message,
      detail: JSONErrorLocation(offset: offset, duplicateKey: duplicateKey))
  }

  /// The byte offset in the input at which the problem was found.
  public var offset: Int { detail?.offset ?? 0 }

  /// For `duplicate_key`, the repeated member name exactly as decoded; nil otherwise.
  public var duplicateKey: String? { detail?.duplicateKey }

  func prefixed(with component: JSONPathComponent) -> JSONError {
    var copy = self
    let path = field ?? ""
    switch component {
    case .key:
      let name = component.text
      copy.field = path.isEmpty || path.hasPrefix("[") ? name + path : name + "." + path
    case .index:
      let name = component.text
      copy.field = path.isEmpty || path.hasPrefix("[") ? name + path : name + "." + path
    }
    return copy
  }
}

/// One step of the path that `JSONError.field` names.
enum JSONPathComponent {
  case key(String)
  case index(Int)

  /// The component as `JSONError.field` writes it: a member name as it is (`""` when empty), an
  /// index in brackets.
  var text: String {
    switch self {
    case .key(let key): key.isEmpty ? "\"\"" : key
    case .index(let index): "[\(index)]"
    }
  }
}
