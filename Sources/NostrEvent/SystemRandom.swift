#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random bytes from the operating system's generator, and wiping of secrets.
///
/// `package` so that every module holding secret bytes (NIP44's keys and buffers) draws and wipes
/// them the same way.
package enum SystemRandom {
  /// `count` fresh random bytes from `SystemRandomNumberGenerator`.
  package static func bytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    var output = [UInt8](repeating: 0, count: count)
    output.withUnsafeMutableBytes { raw in
      var offset = 0
      while offset < raw.count {
        let word = generator.next()
        withUnsafeBytes(of: word) { wordBytes in
          let take = min(8, raw.count - offset)
          raw[offset..<(offset + take)].copyBytes(from: wordBytes[0..<take])
        }
        offset += 8
      }
    }
    return output
  }

  /// Overwrites `bytes` with zeros in a way the optimizer may not remove.
  package static func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { wipe($0) }
  }

  /// Overwrites the memory in `raw` with zeros in a way the optimizer may not remove.
  package static func wipe(_ raw: UnsafeMutableRawBufferPointer) {
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
