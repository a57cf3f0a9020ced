/// One row of a PostgreSQL result in text format, bounded when it was read: the values by column
/// position, nil for SQL NULL.
package struct PostgresRow: Sendable {
  /// The values by column position.
  package var values: [String?]

  /// The text at `column`, nil for NULL or a column past the end.
  package func text(_ column: Int) -> String? {
    values.indices.contains(column) ? values[column] : nil
  }

  /// The integer at `column`, 0 for NULL or text that is not one.
  package func integer(_ column: Int) -> Int64 {
    text(column).flatMap { Int64($0) } ?? 0
  }

  /// The boolean at `column` (`t`), false otherwise.
  package func bool(_ column: Int) -> Bool {
    text(column) == "t"
  }
}

/// What one statement returned: its rows and how many rows it changed.
package struct PostgresResult: Sendable {
  /// The rows, at most the bound the statement was run with.
  package var rows: [PostgresRow]
  /// The rows an `INSERT`, `UPDATE` or `DELETE` changed (`PQcmdTuples`), 0 otherwise.
  package var changed: Int
}
