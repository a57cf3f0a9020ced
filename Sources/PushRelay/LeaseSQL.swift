import PushLease

/// A value bound to a lease statement, spelt by each backend its own way (`LeaseSQLConnection`):
/// a flag is SQLite's 1/0 and PostgreSQL's boolean, an event's JSON SQLite's blob and
/// PostgreSQL's text.
package enum LeaseSQLValue: Sendable {
  /// Text.
  case text(String)
  /// A 64-bit integer.
  case integer(Int64)
  /// A flag.
  case flag(Bool)
  /// An event's compact JSON.
  case json([UInt8])
  /// NULL.
  case null
}

/// A result row of a lease statement, read by column index.
package protocol LeaseSQLRow {
  /// The column as text, nil when NULL.
  func string(_ column: Int) -> String?
  /// The column as an integer (0 when NULL).
  func int64(_ column: Int) -> Int64
  /// The column as a flag.
  func flag(_ column: Int) -> Bool
  /// The column as bytes (an event's JSON), nil when NULL.
  func bytes(_ column: Int) -> [UInt8]?
}

/// The dialect seam under the one lease acceptance (`LeaseAcceptanceSteps`): how a backend's
/// connection runs `LeaseStatements`, binds `LeaseSQLValue`s, reads rows and names a constraint
/// failure. Everything else, the steps and their SQL, is written once.
package protocol LeaseSQLConnection {
  /// What the connection throws.
  associatedtype Failure: Error
  /// Its row type.
  associatedtype Row: LeaseSQLRow

  /// The lease statements in this backend's dialect.
  var leaseStatements: LeaseStatements { get }
  /// Runs `sql` with `values` and maps each row; a backend that bounds its reads (PostgreSQL)
  /// reads at most `maxRows` (more is a failure).
  func select<T>(_ sql: String, _ values: [LeaseSQLValue], maxRows: Int, _ read: (Row) throws(Failure) -> T)
    throws(Failure) -> [T]
  /// Runs `sql` with `values`; the number of rows changed.
  @discardableResult
  func write(_ sql: String, _ values: [LeaseSQLValue]) throws(Failure) -> Int
  /// The refusal a failed upsert is (a constraint the lease broke), nil when it is storage's fault.
  func refusal(for failure: Failure) -> LeaseRefusal.Code?
  /// `error` (a row that does not read) as this connection's failure.
  func failure(_ error: PushRelayError) -> Failure
}
