import Foundation

/// This process's open descriptors, `/proc/self/status` and malloc's in-use heap at one instant.
///
/// The wake run and `--websocket` both sample through it, so growth from a leaked socket, thread
/// or buffer is read the same way in both reports.
struct ProcessSample {
  /// Open file descriptors (`/proc/self/fd`), -1 where they cannot be listed.
  let descriptors: Int
  /// malloc's in-use heap in KiB (`heapInUseKiB()`), -1 where it cannot be read.
  let heapKiB: Int
  private let status: String

  /// Reads the descriptors, then the status, then the heap.
  init() {
    descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    heapKiB = heapInUseKiB()
  }

  /// The text of the status field `name` (`VmRSS` → `12345 kB`), nil when it is absent.
  func field(_ name: String) -> String? {
    status.split(separator: "\n").first { $0.hasPrefix(name + ":") }?.split(separator: ":").last?
      .trimmingCharacters(in: .whitespaces)
  }

  /// The leading number of the status field `name` (`VmRSS` → 12345 KiB, `Threads` → 9), -1 when
  /// it is absent or not a number.
  func number(_ name: String) -> Int {
    field(name)?.split(separator: " ").first.flatMap { Int($0) } ?? -1
  }
}
