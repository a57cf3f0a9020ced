@_exported import NostrPushCore
import _NostrSQLite

/// Why the enrichment cache refused an input or an operation failed.
///
/// Tests and callers match `code` and `field`; `message` is for people. Two errors are equal when
/// their code and field are equal.
public typealias CacheError = DomainError<CacheErrorDomain>

/// The error domain of `CacheError`: its codes are the static members below.
public enum CacheErrorDomain: ErrorDomain {
  /// The SQLite result code behind a storage failure, when there is one.
  public typealias Detail = Int32
}

extension ErrorCode where Domain == CacheErrorDomain {
  /// The database is locked by another connection for longer than the busy timeout.
  public static var busy: Self { Self("busy") }
  /// A table is locked within a shared-cache or same-process connection.
  public static var locked: Self { Self("locked") }
  /// The file was written by a newer version of this library and is left untouched.
  public static var newerSchema: Self { Self("newer_schema") }
  /// The file is damaged or not a database.
  public static var corrupt: Self { Self("corrupt") }
  /// Any other SQLite or file-system failure.
  public static var storage: Self { Self("storage") }
  /// The event's id or signature does not verify.
  public static var invalidEvent: Self { Self("invalid_event") }
  /// The event is of another kind than the operation stores.
  public static var wrongKind: Self { Self("wrong_kind") }
  /// The event is not signed by the expected key.
  public static var wrongSigner: Self { Self("wrong_signer") }
  /// A field of the event or argument is missing or malformed; `field` names it.
  public static var invalidField: Self { Self("invalid_field") }
  /// Avatar bytes are not PNG, JPEG, GIF or WebP, or exceed the size bound.
  public static var invalidImage: Self { Self("invalid_image") }
  /// The account was removed; only an explicit add clears it.
  public static var accountRemoved: Self { Self("account_removed") }
  /// The import queue already holds its maximum number of pending batches.
  public static var queueFull: Self { Self("queue_full") }
  /// Waiting for a result passed its deadline.
  public static var timeout: Self { Self("timeout") }
  /// The waiting task was cancelled.
  public static var cancelled: Self { Self("cancelled") }
}

extension DomainError where Domain == CacheErrorDomain {
  /// The SQLite result code behind a storage failure, when there is one: what an app logs to
  /// tell a full disk from a damaged file.
  public var sqliteCode: Int32? { detail }

  /// True for `busy` and `locked`: another connection holds the lock, and a later try may work.
  public var isTransient: Bool { code == .busy || code == .locked }

  /// `busy`, `locked` or `corrupt` for those SQLite results, else `storage`; the result code is
  /// kept as `sqliteCode`.
  static func sqlite(_ failure: SQLiteFailure) -> CacheError {
    let code: Code =
      switch failure.kind {
      case .busy: .busy
      case .locked: .locked
      case .corrupt: .corrupt
      case .constraint, .other: .storage
      }
    return CacheError(code: code, message: failure.message, detail: failure.status)
  }

  static func invalid(_ field: String, _ message: String) -> CacheError {
    CacheError(code: .invalidField, field: field, message: message)
  }
}
