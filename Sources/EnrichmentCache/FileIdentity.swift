import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file a path names right now (device and inode), so that a connection notices when
/// another process moved its file aside and started a fresh one at the same path.
///
/// A connection whose file was renamed keeps writing to it without an error (in WAL mode SQLite
/// reports nothing), so a process that opened the cache before another moved the damaged file
/// aside would otherwise go on writing where nobody reads.
struct FileIdentity: Sendable, Hashable {
  private let device: UInt64
  private let inode: UInt64

  /// The identity of the file at `path`, or nil when there is none.
  init?(path: String) {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    device = UInt64(status.st_dev)
    inode = UInt64(status.st_ino)
  }
}
