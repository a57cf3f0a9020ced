import PushRelay
import PushRelayPostgres
import Testing
import _NostrPostgres

/// `Docs/VendoringPushRelay.md` §Scale on PostgreSQL: every statement the store, the outbox and the sweeper run
/// on `push_lease` or `push_wake` is served by an index.
@Suite(
  .enabled(if: PostgresTestDatabase.isConfigured, PostgresTestDatabase.skipNote), .timeLimit(.minutes(1)))
struct PostgresQueryPlanTests {
  @Test func servesEveryLeaseAndWakeStatementFromAnIndex() throws {
    let database = try PostgresTestDatabase()
    defer { database.drop() }
    _ = try database.open()
    let connection = try PostgresConnection(connectionString: database.connectionString)
    defer { connection.close() }
    // Small test tables make the planner prefer a sequential scan; forbid it unless it is the only
    // way, and plan each statement generically (its parameters unknown), as it runs prepared.
    try connection.execute("SET enable_seqscan = off; SET plan_cache_mode = force_generic_plan")
    for (index, (name, sql)) in PostgresStatements.planned.enumerated() {
      try connection.execute("PREPARE planned_\(index) AS \(sql)")
      let types =
        try connection.query(
          "SELECT array_length(parameter_types, 1) FROM pg_prepared_statements WHERE name = $1",
          ["planned_\(index)"]
        ).rows.first?.integer(0) ?? 0
      let arguments = (0..<types).map { _ in "NULL" }.joined(separator: ", ")
      let plan = try connection.query(
        "EXPLAIN EXECUTE planned_\(index)\(types > 0 ? "(\(arguments))" : "")", maxRows: 200
      ).rows.compactMap { $0.text(0) }
      let scans = plan.filter {
        $0.contains("Seq Scan on push_lease") || $0.contains("Seq Scan on push_wake")
      }
      #expect(scans.isEmpty, "\(name): \(plan.joined(separator: "\n"))")
      #expect(plan.contains { $0.contains("Index") }, "\(name): \(plan.joined(separator: "\n"))")
    }
  }
}
