internal import CSQLite

/// A prepared statement owned by one `SQLiteConnection`; finalizes itself when released.
final class SQLiteStatement {
  let handle: OpaquePointer

  init(handle: OpaquePointer) { self.handle = handle }

  deinit { sqlite3_finalize(handle) }

  /// Binds `values` to parameters 1…n; returns the first status that is not `SQLITE_OK`.
  ///
  /// A non-empty blob is bound in place from `blobs` (its bytes by index in `values`), without a
  /// copy (`SQLITE_STATIC`): the caller keeps those bytes valid until ``reset()``.
  func bind(_ values: [SQLiteValue], blobs: [Int: UnsafeRawBufferPointer]) -> Int32 {
    for (offset, value) in values.enumerated() {
      if let raw = blobs[offset] {
        let status = sqlite3_bind_blob(handle, Int32(offset + 1), raw.baseAddress, Int32(raw.count), nil)
        guard status == SQLITE_OK else { return status }
        continue
      }
      let status = bind(value, at: Int32(offset + 1))
      guard status == SQLITE_OK else { return status }
    }
    return SQLITE_OK
  }

  /// Clears the statement for its next use, so that no read stays open.
  func reset() {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  private func bind(_ value: SQLiteValue, at index: Int32) -> Int32 {
    switch value {
    case .null:
      return sqlite3_bind_null(handle, index)
    case .integer(let number):
      return sqlite3_bind_int64(handle, index, number)
    case .text(let text):
      guard !text.isEmpty else {
        return sqlite3_bind_text(handle, index, "", 0, nostrpush_sqlite_transient())
      }
      var text = text
      return text.withUTF8 { bytes in
        bytes.withMemoryRebound(to: CChar.self) { chars in
          sqlite3_bind_text(
            handle, index, chars.baseAddress, Int32(chars.count), nostrpush_sqlite_transient())
        }
      }
    case .blob(let bytes):
      guard !bytes.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
      return bytes.withUnsafeBytes { raw in
        sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), nostrpush_sqlite_transient())
      }
    }
  }
}
