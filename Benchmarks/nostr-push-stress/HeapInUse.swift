import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The bytes malloc has handed out and not had back, over every arena and mmapped chunk, in
/// KiB; -1 where it cannot be read. Unlike RSS it does not count memory the allocator keeps after
/// a free, so it tells live data from arena retention. glibc's `malloc_stats()` (looked up with
/// `dlsym`, as Swift's Glibc module does not import `malloc.h`) prints its "Total (incl. mmap)"
/// figures to stderr, so stderr is pointed at a scratch file for the call (a line another thread
/// logs in that instant would land there too).
func heapInUseKiB() -> Int {
  #if canImport(Glibc)
  guard let symbol = dlsym(nil, "malloc_stats") else { return -1 }
  let mallocStats = unsafeBitCast(symbol, to: (@convention(c) () -> Void).self)
  let path = NSTemporaryDirectory() + "nostr-push-stress-malloc-\(getpid()).txt"
  let file = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0o600)
  guard file >= 0 else { return -1 }
  defer { unlink(path) }
  fflush(nil)
  let saved = dup(2)
  dup2(file, 2)
  mallocStats()
  fflush(nil)
  dup2(saved, 2)
  close(saved)
  close(file)
  guard let text = try? String(contentsOfFile: path, encoding: .utf8),
    let total = text.range(of: "Total (incl. mmap):")
  else { return -1 }
  let inUse = text[total.upperBound...].split(separator: "\n").first { $0.hasPrefix("in use bytes") }
  return inUse.flatMap { $0.split(separator: "=").last }
    .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { $0 / 1024 } ?? -1
  #else
  return -1
  #endif
}
