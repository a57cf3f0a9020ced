internal import CSQLite

/// The current row of a statement, read by column index; valid only inside the row closure.
package struct SQLiteRow {
  let handle: OpaquePointer

  /// The column as an integer (0 when null).
  package func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

  /// The column as an integer, or nil when null.
  package func optionalInteger(_ column: Int32) -> Int64? {
    guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
    return sqlite3_column_int64(handle, column)
  }

  /// The column as text, or nil when null.
  package func text(_ column: Int32) -> String? {
    guard sqlite3_column_type(handle, column) != SQLITE_NULL,
      let pointer = sqlite3_column_text(handle, column)
    else { return nil }
    let count = Int(sqlite3_column_bytes(handle, column))
    return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
  }

  /// The column as bytes, or nil when null.
  package func blob(_ column: Int32) -> [UInt8]? {
    guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
    let count = Int(sqlite3_column_bytes(handle, column))
    guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
    return Array(UnsafeRawBufferPointer(start: pointer, count: count))
  }
}
