import Foundation
import NostrJSON
import PushLease

/// The `--state` file of `enroll` and `revoke`: per `push.origin`, then per account pubkey, the
/// `LeaseEnrollment` less the origin and pubkey that key it (`Docs/CommandLine.md`).
///
/// Read strictly and bounded; written whole to a temporary file (0600, opened `O_EXCL |
/// O_NOFOLLOW`) that is fsynced and then replaces the old one (the folder fsynced too), so a crash
/// or a power cut leaves the old state or the new, never half of one. `enroll` reads, advances and writes it under an exclusive lock before it
/// signs, so no publish (answered, failed or lost) ever reuses a generation, even with two enrolls
/// at once.
struct EnrollmentState: Sendable {
  /// The largest state file read.
  static let maxBytes = 1024 * 1024

  private var entries: [String: [String: LeaseEnrollment]] = [:]

  /// The state in `path`; empty when the file does not exist.
  init(path: String) throws {
    guard FileManager.default.fileExists(atPath: path) else { return }
    let bytes = try BoundedFile.bytes(path, maxBytes: Self.maxBytes, what: "state file")
    guard case .object(let origins) = try JSONReader().read(bytes) else {
      throw StateFileError("the state file is not a JSON object")
    }
    for origin in origins.members {
      guard case .object(let accounts) = origin.value else {
        throw StateFileError("\(origin.key) is not an object of accounts")
      }
      for account in accounts.members {
        entries[origin.key, default: [:]][account.key] = try Self.enrollment(
          account.value, origin: origin.key, pubkey: account.key)
      }
    }
  }

  /// The enrollment of `pubkey` at `origin`, nil before the first.
  func enrollment(origin: String, pubkey: String) -> LeaseEnrollment? { entries[origin]?[pubkey] }

  /// Records `enrollment` under its origin and pubkey.
  mutating func set(_ enrollment: LeaseEnrollment) {
    entries[enrollment.origin, default: [:]][enrollment.pubkey] = enrollment
  }

  /// Writes the whole state to `path` durably: a temporary file beside it, written whole and
  /// fsynced, renamed over the old one, then the folder fsynced, so a crash or power cut leaves the
  /// old state or the new, never half of one. Callers hold ``withLock(_:_:)``.
  func write(to path: String) throws {
    let origins = entries.keys.sorted().map { origin in
      JSONMember(
        key: origin,
        value: .object(
          JSONObject(
            entries[origin, default: [:]].keys.sorted().map { pubkey in
              JSONMember(key: pubkey, value: Self.value(entries[origin]![pubkey]!))
            })))
    }
    let bytes = JSONWriter.bytes(.object(JSONObject(origins))) + [0x0A]
    // One writer at a time holds the lock, so the temporary name is fixed; it is opened with
    // O_EXCL | O_NOFOLLOW (`Docs/Robustness.md`), so whatever was left or planted there (a symlink
    // in a shared folder) is removed — the link itself, never what it names — and never written
    // through.
    let temporary = path + ".tmp"
    var descriptor = Self.createExclusive(temporary)
    if descriptor < 0, errno == EEXIST {
      _ = unlink(temporary)
      descriptor = Self.createExclusive(temporary)
    }
    guard descriptor >= 0 else { throw StateFileError("cannot create \(temporary) (errno \(errno))") }
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else {
        close(descriptor)
        try? FileManager.default.removeItem(atPath: temporary)
        throw StateFileError("cannot write \(temporary) (errno \(errno))")
      }
      written += count
    }
    guard fsync(descriptor) == 0 else {
      close(descriptor)
      try? FileManager.default.removeItem(atPath: temporary)
      throw StateFileError("cannot fsync \(temporary) (errno \(errno))")
    }
    close(descriptor)
    guard rename(temporary, path) == 0 else {
      try? FileManager.default.removeItem(atPath: temporary)
      throw StateFileError("cannot replace \(path) (errno \(errno))")
    }
    let folder = (path as NSString).deletingLastPathComponent
    let directory = open(folder.isEmpty ? "." : folder, O_RDONLY)
    if directory >= 0 {
      defer { close(directory) }
      guard fsync(directory) == 0 else {
        throw StateFileError("cannot fsync the folder of \(path) (errno \(errno))")
      }
    }
  }

  /// A new file at `path`, 0600, failing when anything (a symlink included) is already there.
  private static func createExclusive(_ path: String) -> Int32 {
    open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
  }

  /// Runs `body` holding an exclusive lock (`flock`) on `path` + `.lock`, so two processes never
  /// read the same state and take the same generation. A symlink at the lock's path is refused
  /// (`O_NOFOLLOW`), never followed.
  static func withLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
    let descriptor = open(path + ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw StateFileError("cannot open \(path).lock (errno \(errno))") }
    defer { close(descriptor) }
    guard flock(descriptor, LOCK_EX) == 0 else {
      throw StateFileError("cannot lock \(path).lock (errno \(errno))")
    }
    defer { flock(descriptor, LOCK_UN) }
    return try body()
  }

  private static func value(_ enrollment: LeaseEnrollment) -> JSONValue {
    .object(
      JSONObject([
        "d": .string(enrollment.installationID.rawValue),
        "last_generation": .integer(enrollment.lastGeneration),
        "last_created_at": .integer(enrollment.lastCreatedAt),
        "grant_expires_at": enrollment.grantExpiresAt.map(JSONValue.integer) ?? .null,
      ]))
  }

  private static func enrollment(_ value: JSONValue, origin: String, pubkey: String) throws -> LeaseEnrollment
  {
    guard case .object(let object) = value, let d = object["d"]?.stringValue,
      let installationID = InstallationID(rawValue: d),
      let generation = object["last_generation"]?.integerValue, generation >= 0,
      let createdAt = object["last_created_at"]?.integerValue, createdAt >= 0
    else {
      throw StateFileError("\(origin) → \(pubkey) is not an enrollment (d, last_generation, last_created_at)")
    }
    let expiresAt = object["grant_expires_at"]
    guard expiresAt == nil || expiresAt == .null || expiresAt?.integerValue != nil else {
      throw StateFileError("\(origin) → \(pubkey): grant_expires_at must be an integer or null")
    }
    return LeaseEnrollment(
      origin: origin, pubkey: pubkey, installationID: installationID, lastGeneration: generation,
      lastCreatedAt: createdAt, grantExpiresAt: expiresAt?.integerValue)
  }
}

/// Why a state file could not be read or written.
struct StateFileError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
