import Foundation
import NostrEvent
import NostrPushTesting
import Testing

@Suite struct DataFolderTests {
  static func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "relay-fixture-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("media"), withIntermediateDirectories: true)
    return folder
  }

  @Test func loadsEventsAndReportsBadLines() throws {
    let scenario = Scenario()
    let first = try scenario.message("one", offset: 1)
    let second = try scenario.message("two", offset: 2)
    let folder = try Self.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let lines = [
      first.jsonBytes(), Array("not an event".utf8), [], second.jsonBytes(), Array(#"{"id":1}"#.utf8),
    ]
    try Data(lines.map { $0 + [0x0A] }.joined()).write(to: folder.appendingPathComponent("events.jsonl"))
    let data = try RelayFixtureData.load(folder: folder)
    #expect(data.events.map(\.id) == [first.id, second.id])
    #expect(data.problems.map(\.line) == [2, 5])
  }

  @Test func loadsMediaWithSafeNamesOnly() throws {
    let folder = try Self.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data([1, 2]).write(to: folder.appendingPathComponent("media/avatar.png"))
    try Data([3]).write(to: folder.appendingPathComponent("media/.secret"))
    try Data([4]).write(to: folder.appendingPathComponent("media/bad name.png"))
    let data = try RelayFixtureData.load(folder: folder)
    #expect(data.media == ["avatar.png": [1, 2]])
  }

  @Test func loadsFaultsJSON() throws {
    let folder = try Self.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let faults = """
      [{"path":"/query","kind":0,"action":"delay","ms":2500},
       {"path":"/query","kind":39002,"action":"oversized_body","bytes":4194304,"declares_length":false},
       {"path":"/media/*","action":"status","status":503,"times":1},
       {"path":"/query","action":"truncated_body"},{"path":"/","action":"not_json"},
       {"path":"/","action":"close"},{"path":"/query","action":"body","body":"[]"}]
      """
    try Data(faults.utf8).write(to: folder.appendingPathComponent("faults.json"))
    let data = try RelayFixtureData.load(folder: folder)
    #expect(
      data.faults == [
        RelayFault(path: "/query", kind: 0, action: .delay(milliseconds: 2500)),
        RelayFault(
          path: "/query", kind: 39002, action: .oversizedBody(bytes: 4_194_304, declaresLength: false)),
        RelayFault(path: "/media/*", action: .status(503), times: 1),
        RelayFault(path: "/query", action: .truncatedBody),
        RelayFault(path: "/", action: .notJSON),
        RelayFault(path: "/", action: .closeConnection),
        RelayFault(
          path: "/query", action: .body(status: 200, contentType: "application/json", bytes: Array("[]".utf8))
        ),
      ])
  }

  @Test(arguments: [
    (#"{"path":"/query"}"#, "faults.json"),
    (#"[{"path":"/query","action":"explode"}]"#, "faults.json[0].action"),
    (#"[{"path":"/query","action":"delay"}]"#, "faults.json[0].ms"),
    (#"[{"path":"/query","action":"status","status":99}]"#, "faults.json[0].status"),
    (#"[{"path":"query","action":"close"}]"#, "faults.json[0].path"),
    (#"[{"path":"/","action":"close","ms":5}]"#, "faults.json[0].ms"),
  ])
  func refusesAnInvalidFaultsFile(json: String, field: String) throws {
    let folder = try Self.temporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data(json.utf8).write(to: folder.appendingPathComponent("faults.json"))
    let error = #expect(throws: RelayFixtureError.self) { try RelayFixtureData.load(folder: folder) }
    #expect(error?.code == .invalidData)
    #expect(error?.field == field)
  }

  @Test func refusesAMissingFolder() {
    let error = #expect(throws: RelayFixtureError.self) {
      try RelayFixtureData.load(folder: URL(fileURLWithPath: "/nonexistent/relay-fixture"))
    }
    #expect(error?.code == .unreadable)
  }
}
