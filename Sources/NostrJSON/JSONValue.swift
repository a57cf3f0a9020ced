/// A JSON value as the strict reader saw it: integers, floats, booleans and null kept apart.
///
/// Integer literals (no fraction, no exponent) that fit in `Int64` are `.integer`; every other
/// number, including an integer literal too large for `Int64`, is `.float`. A boolean is never a
/// number and a number is never a boolean, unlike `NSNumber` bridging.
public enum JSONValue: Sendable, Hashable {
  /// JSON `null`.
  case null
  /// `true` or `false`; never a number.
  case bool(Bool)
  /// A number written without fraction or exponent that fits in `Int64`.
  case integer(Int64)
  /// Any other number: with a fraction or exponent, or an integer too large for `Int64`.
  case float(Double)
  /// A string, escapes decoded.
  case string(String)
  /// An array, elements in order.
  case array([JSONValue])
  /// An object, members in document order.
  case object(JSONObject)

  /// The string, when this is a JSON string.
  public var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// The integer, when this is a JSON integer literal (never a float or a boolean).
  public var integerValue: Int64? {
    if case .integer(let value) = self { return value }
    return nil
  }

  /// The boolean, when this is `true` or `false`.
  public var boolValue: Bool? {
    if case .bool(let value) = self { return value }
    return nil
  }

  /// The elements, when this is a JSON array.
  public var arrayValue: [JSONValue]? {
    if case .array(let value) = self { return value }
    return nil
  }

  /// The members, when this is a JSON object.
  public var objectValue: JSONObject? {
    if case .object(let value) = self { return value }
    return nil
  }

  /// Whether this is `null`.
  public var isNull: Bool {
    if case .null = self { return true }
    return false
  }

  /// A short name of the value's JSON type for error messages (`"string"`, `"integer"`, …).
  package var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "boolean"
    case .integer: "integer"
    case .float: "float"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }
}
