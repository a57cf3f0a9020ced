/// A value bound to a statement parameter.
package enum SQLiteValue {
  case null
  case integer(Int64)
  case text(String)
  case blob([UInt8])

  /// Text, or null when `value` is nil.
  package static func text(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
  /// A Boolean as 0 or 1.
  package static func bool(_ value: Bool) -> SQLiteValue { .integer(value ? 1 : 0) }
}
