/// One decoded CBOR item of the subset `CBORReader` accepts: integers, byte and text strings,
/// arrays, maps with text keys, and false, true and null.
public enum CBORValue: Sendable, Equatable {
  /// An unsigned integer (major type 0).
  case unsigned(UInt64)
  /// A negative integer −1 − n (major type 1), holding n.
  case negative(UInt64)
  /// A byte string (major type 2).
  case bytes([UInt8])
  /// A UTF-8 text string (major type 3).
  case text(String)
  /// An array (major type 4).
  case array([CBORValue])
  /// A map with text keys, in the input's order, keys unique (major type 5).
  case map([(key: String, value: CBORValue)])
  /// false or true (simple values 20 and 21).
  case bool(Bool)
  /// null (simple value 22).
  case null

  /// The value under `key` when this is a map holding it; nil otherwise.
  public subscript(key: String) -> CBORValue? {
    guard case .map(let entries) = self else { return nil }
    return entries.first { $0.key == key }?.value
  }

  /// The bytes of a byte string; nil for any other item.
  public var byteString: [UInt8]? {
    if case .bytes(let bytes) = self { return bytes }
    return nil
  }

  /// The text of a text string; nil for any other item.
  public var textString: String? {
    if case .text(let text) = self { return text }
    return nil
  }

  /// The items of an array; nil for any other item.
  public var arrayItems: [CBORValue]? {
    if case .array(let items) = self { return items }
    return nil
  }

  /// Compares item by item; maps compare their entries in order.
  public static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
    switch (lhs, rhs) {
    case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)): return a == b
    case (.bytes(let a), .bytes(let b)): return a == b
    case (.text(let a), .text(let b)): return a == b
    case (.array(let a), .array(let b)): return a == b
    case (.map(let a), .map(let b)):
      return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    case (.bool(let a), .bool(let b)): return a == b
    case (.null, .null): return true
    default: return false
    }
  }
}
