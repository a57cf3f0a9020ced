import NostrPushCore

/// Why the enrichment cache refused an input or an operation failed.
///
/// Tests and callers match `code` and `field`; `message` is for people. Two errors are equal when
/// their code and field are equal.
public struct CacheError: NostrPushError {
  /// The stable reason.
  public enum Code: String, Sendable, Hashable {
    /// The database is locked by another connection for longer than the busy timeout.
    case busy
    /// A table is locked within a shared-cache or same-process connection.
    case locked
    /// The file was written by a newer version of this library and is left untouched.
    case newerSchema
    /// The file is damaged or not a database.
    case corrupt
    /// Any other SQLite or file-system failure.
    case storage
    /// The event's id or signature does not verify.
    case invalidEvent
    /// The event is of another kind than the operation stores.
    case wrongKind
    /// The event is not signed by the expected key.
    case wrongSigner
    /// A field of the event or argument is missing or malformed; `field` names it.
    case invalidField
    /// Avatar bytes are not PNG, JPEG, GIF or WebP, or exceed the size bound.
    case invalidImage
    /// The account was removed; only an explicit add clears it.
    case accountRemoved
    /// The import queue already holds its maximum number of pending batches.
    case queueFull
    /// Waiting for a result passed its deadline.
    case timeout
    /// The waiting task was cancelled.
    case cancelled
  }

  /// The stable reason.
  public var code: Code
  /// The field or argument at fault (`content.display_name`, `tags.p`, `relay`), when there is one.
  public var field: String?
  /// A human-readable explanation.
  public var message: String
  /// The SQLite result code (extended) behind a storage failure, when there is one.
  public var sqliteCode: Int32?

  /// Creates an error.
  public init(code: Code, field: String? = nil, message: String, sqliteCode: Int32? = nil) {
    self.code = code
    self.field = field
    self.message = message
    self.sqliteCode = sqliteCode
  }

  /// Whether a retry after a pause can succeed (`busy` or `locked`).
  public var isTransient: Bool { code == .busy || code == .locked }

  public var description: String {
    field.map { "\(code.rawValue) (\($0)): \(message)" } ?? "\(code.rawValue): \(message)"
  }

  /// Maps an SQLite result code (possibly extended) to an error.
  static func sqlite(_ status: Int32, message: String) -> CacheError {
    let code: Code
    switch status & 0xFF {
    case 5: code = .busy  // SQLITE_BUSY
    case 6: code = .locked  // SQLITE_LOCKED
    case 11, 26: code = .corrupt  // SQLITE_CORRUPT, SQLITE_NOTADB
    default: code = .storage
    }
    return CacheError(code: code, message: message, sqliteCode: status)
  }

  /// A malformed field.
  static func invalid(_ field: String, _ message: String) -> CacheError {
    CacheError(code: .invalidField, field: field, message: message)
  }
}
