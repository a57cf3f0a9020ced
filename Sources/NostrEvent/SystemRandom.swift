#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random bytes from the operating system's generator, and wiping of secrets.
enum SystemRandom {
  /// `count` fresh random bytes from `SystemRandomNumberGenerator`.
  static func bytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
  }

  /// Overwrites `bytes` with zeros in a way the optimizer may not remove.
  static func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { wipe($0) }
  }

  /// Overwrites the memory in `raw` with zeros in a way the optimizer may not remove.
  static func wipe(_ raw: UnsafeMutableRawBufferPointer) {
    guard let base = raw.baseAddress, raw.count > 0 else { return }
    #if canImport(Glibc)
    explicit_bzero(base, raw.count)
    #elseif canImport(Darwin)
    _ = memset_s(base, raw.count, 0, raw.count)
    #else
    for index in raw.indices { raw[index] = 0 }
    #endif
  }
}
