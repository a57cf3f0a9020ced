import Foundation
import NostrEvent
import NostrJSON

/// What a fixture relay serves: a NIP-11 document, events, media files and faults.
///
/// Load it from a data folder (`load(folder:)`) or build it in memory, so a test can set up a
/// scenario in a few lines. Events keep the exact JSON bytes they were given, so an event with
/// unusual escaping is served byte for byte.
public struct RelayFixtureData: Sendable {
  /// The largest single file read from a data folder (64 MiB).
  package static let maxFileBytes = 64 * 1024 * 1024

  /// A line of `events.jsonl` that was skipped, and why.
  package struct Problem: Sendable, Hashable {
    /// The 1-based line number.
    package var line: Int
    /// Why the line was skipped.
    package var message: String

    /// Creates a problem report.
    package init(line: Int, message: String) {
      self.line = line
      self.message = message
    }
  }

  /// An event and the exact JSON bytes served for it.
  struct Entry: Sendable {
    var event: Event
    var json: [UInt8]
  }

  /// The bytes of `GET /` with `Accept: application/nostr+json`; nil answers 404.
  public var nip11: [UInt8]?
  /// Media files by name (a single path component), served under `/media/<name>`.
  package var media: [String: [UInt8]]
  /// Faults active from the start.
  public var faults: [RelayFault]
  /// Kinds besides 30350 that only their author may read (`policy.json`'s `auth_required_kinds`):
  /// a REQ or `/query` for them needs `authors` = [the authenticated pubkey].
  public var authRequiredKinds: Set<Int> = []
  /// Lines of `events.jsonl` that could not be parsed (empty for data built in memory).
  package private(set) var problems: [Problem]
  private(set) var entries: [Entry]

  /// The events served by `POST /query`.
  public var events: [Event] { entries.map(\.event) }

  /// Creates data in memory; `nip11` is served as given, events as their compact JSON.
  public init(
    nip11: [UInt8]? = nil, events: [Event] = [], media: [String: [UInt8]] = [:], faults: [RelayFault] = []
  ) {
    self.nip11 = nip11
    self.media = media
    self.faults = faults
    self.problems = []
    self.entries = events.map { Entry(event: $0, json: $0.jsonBytes()) }
  }

  /// Adds an event before the server starts, served as its compact JSON (a running server takes
  /// events through `RelayFixtureServer.add(_:)`).
  public mutating func add(_ event: Event) {
    entries.append(Entry(event: event, json: event.jsonBytes()))
  }

  /// Adds an event given as JSON, served byte for byte as given (surrounding whitespace removed).
  package mutating func add(eventJSON bytes: [UInt8]) throws(EventError) {
    let trimmed = Self.trimmed(bytes[...])
    let event = try Event(json: trimmed)
    entries.append(Entry(event: event, json: Array(trimmed)))
  }

  /// Loads a data folder: `nip11.json`, `events.jsonl` (one event per line; blank lines skipped,
  /// bad lines listed in `problems`), `media/` (files with safe names) and `faults.json`
  /// (format on `RelayFault`). Every part is optional.
  public static func load(folder: URL) throws(RelayFixtureError) -> RelayFixtureData {
    var data = RelayFixtureData()
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw RelayFixtureError(code: .unreadable, field: "data", message: "\(folder.path) is not a folder")
    }
    data.nip11 = try readIfPresent(folder.appendingPathComponent("nip11.json"), field: "nip11.json")
    if let lines = try readIfPresent(folder.appendingPathComponent("events.jsonl"), field: "events.jsonl") {
      data.loadEvents(lines)
      if let refused = data.refusedLine {
        throw RelayFixtureError(
          code: .invalidData, field: "events.jsonl:\(refused.line)", message: refused.message)
      }
    }
    if let policy = try readIfPresent(folder.appendingPathComponent("policy.json"), field: "policy.json") {
      data.authRequiredKinds = try Self.authRequiredKinds(policy)
    }
    if let faults = try readIfPresent(folder.appendingPathComponent("faults.json"), field: "faults.json") {
      data.faults = try RelayFault.parseList(faults)
    }
    let mediaFolder = folder.appendingPathComponent("media")
    if let names = try? FileManager.default.contentsOfDirectory(atPath: mediaFolder.path) {
      for name in names.sorted() where MediaName.isSafe(name) {
        let file = mediaFolder.appendingPathComponent(name)
        if let bytes = try readIfPresent(file, field: "media/\(name)") { data.media[name] = bytes }
      }
    }
    return data
  }

  /// The largest stored event (4 MiB − 1 KiB), so that its `EVENT` message fits 4 MiB.
  package static let maxStoredEventBytes = 4 * 1024 * 1024 - 1024

  /// The first line of `events.jsonl` storage refuses (a lease, or an event over the bound).
  private var refusedLine: Problem?

  /// Reads `policy.json`: `{"auth_required_kinds":[…]}`, every member optional, unknown ones refused.
  static func authRequiredKinds(_ bytes: [UInt8]) throws(RelayFixtureError) -> Set<Int> {
    guard case .object(let object)? = try? JSONReader().read(bytes) else {
      throw RelayFixtureError(code: .invalidData, field: "policy.json", message: "not a JSON object")
    }
    var kinds = Set<Int>()
    for member in object.members {
      guard member.key == "auth_required_kinds" else {
        throw RelayFixtureError(
          code: .invalidData, field: "policy.json", message: "unknown member \(member.key)")
      }
      guard let values = member.value.arrayValue else {
        throw RelayFixtureError(
          code: .invalidData, field: "policy.json", message: "auth_required_kinds must be an array of kinds")
      }
      for value in values {
        guard let kind = value.integerValue.flatMap({ Int(exactly: $0) }), (0...Event.maxKind).contains(kind)
        else {
          throw RelayFixtureError(
            code: .invalidData, field: "policy.json", message: "auth_required_kinds holds a non-kind")
        }
        kinds.insert(kind)
      }
    }
    return kinds
  }

  private mutating func loadEvents(_ bytes: [UInt8]) {
    var lineNumber = 0
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
      lineNumber += 1
      let trimmed = Self.trimmed(line)
      guard !trimmed.isEmpty else { continue }
      do {
        let event = try Event(json: trimmed)
        if refusedLine == nil, event.kind == EventKind.pushLease {
          refusedLine = Problem(line: lineNumber, message: "leases arrive only through ingest")
        } else if refusedLine == nil, trimmed.count > Self.maxStoredEventBytes {
          refusedLine = Problem(line: lineNumber, message: "event over \(Self.maxStoredEventBytes) bytes")
        }
        entries.append(Entry(event: event, json: Array(trimmed)))
      } catch {
        problems.append(Problem(line: lineNumber, message: "\(error.code.rawValue): \(error.message)"))
      }
    }
  }

  private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    guard let first = bytes.firstIndex(where: { !isSpace($0) }),
      let last = bytes.lastIndex(where: { !isSpace($0) })
    else { return [] }
    return bytes[first...last]
  }

  private static func readIfPresent(_ file: URL, field: String) throws(RelayFixtureError) -> [UInt8]? {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else { return nil }
    guard !isDirectory.boolValue else { return nil }
    let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
    guard size <= maxFileBytes else {
      throw RelayFixtureError(code: .invalidData, field: field, message: "over \(maxFileBytes) bytes")
    }
    guard let contents = FileManager.default.contents(atPath: file.path) else {
      throw RelayFixtureError(code: .unreadable, field: field, message: "cannot read \(file.path)")
    }
    return Array(contents)
  }
}
