#if canImport(CryptoKit)
import CryptoKit
import Foundation
#endif

/// SHA-256 (FIPS 180-4), written in Swift so that the module needs no crypto library (CryptoKit
/// is used instead where it exists).
///
/// It computes every event id, so it works on whole 64-byte blocks straight from the caller's
/// memory, without copying or allocating per byte.
public enum SHA256 {
  /// The size of a digest in bytes.
  public static let digestCount = 32

  /// The 32-byte SHA-256 digest of `bytes`.
  public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
    if let digest = bytes.withContiguousStorageIfAvailable({ hash(buffer: UnsafeRawBufferPointer($0)) }) {
      return digest
    }
    return Array(bytes).withUnsafeBytes { hash(buffer: $0) }
  }

  /// The 32-byte SHA-256 digest of the bytes in `buffer`.
  public static func hash(buffer: UnsafeRawBufferPointer) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: digestCount) { output, initialized in
      hash(buffer: buffer, into: UnsafeMutableRawBufferPointer(output))
      initialized = digestCount
    }
  }

  /// Writes the digest of `buffer` into the first 32 bytes of `digest`.
  static func hash(buffer: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
    precondition(digest.count >= digestCount)
    #if canImport(CryptoKit)
    // Apple platforms: the system implementation uses the CPU's SHA instructions.
    CryptoKit.SHA256.hash(data: buffer).withUnsafeBytes { digest.copyMemory(from: $0) }
    #else
    portableHash(buffer: buffer, into: digest)
    #endif
  }

  /// The Swift implementation (every platform without CryptoKit).
  static func portableHash(buffer: UnsafeRawBufferPointer, into digest: UnsafeMutableRawBufferPointer) {
    var state = SHA256State()
    roundConstants.withUnsafeBufferPointer { constants in
      withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
        let k = constants.baseAddress!
        let w = schedule.baseAddress!
        let fullBlocks = buffer.count / 64
        if let base = buffer.baseAddress {
          for block in 0..<fullBlocks {
            state.compress(base + block * 64, k: k, w: w)
          }
        }
        // The tail: the remaining bytes, 0x80, zeros and the bit length, in one or two blocks.
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
          let remaining = buffer.count - fullBlocks * 64
          if remaining > 0 {
            tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[(fullBlocks * 64)...]))
          }
          tail[remaining] = 0x80
          let tailCount = remaining < 56 ? 64 : 128
          for index in (remaining + 1)..<(tailCount - 8) { tail[index] = 0 }
          let bitLength = UInt64(buffer.count) &* 8
          tail.storeBytes(of: bitLength.bigEndian, toByteOffset: tailCount - 8, as: UInt64.self)
          state.compress(UnsafeRawPointer(tail.baseAddress!), k: k, w: w)
          if tailCount == 128 {
            state.compress(UnsafeRawPointer(tail.baseAddress! + 64), k: k, w: w)
          }
        }
      }
    }
    state.write(to: digest)
  }

  private static let roundConstants: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]
}

/// The eight working words of one SHA-256 computation.
private struct SHA256State {
  var h0: UInt32 = 0x6a09_e667
  var h1: UInt32 = 0xbb67_ae85
  var h2: UInt32 = 0x3c6e_f372
  var h3: UInt32 = 0xa54f_f53a
  var h4: UInt32 = 0x510e_527f
  var h5: UInt32 = 0x9b05_688c
  var h6: UInt32 = 0x1f83_d9ab
  var h7: UInt32 = 0x5be0_cd19

  @inline(__always)
  private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 {
    (x &>> n) | (x &<< (32 &- n))
  }

  /// One round; the caller rotates the roles of the eight words instead of moving them.
  @inline(__always)
  private static func round(
    _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
    _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32
  ) {
    let sigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
    let choice = g ^ (e & (f ^ g))
    let temp1 = h &+ sigma1 &+ choice &+ kw
    let sigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
    let majority = (a & b) | (c & (a | b))
    d = d &+ temp1
    h = temp1 &+ sigma0 &+ majority
  }

  @inline(__always)
  mutating func compress(_ block: UnsafeRawPointer, k: UnsafePointer<UInt32>, w: UnsafeMutablePointer<UInt32>)
  {
    for t in 0..<16 {
      w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
    }
    for t in 16..<64 {
      let a = w[t &- 15]
      let b = w[t &- 2]
      let s0 = Self.rotr(a, 7) ^ Self.rotr(a, 18) ^ (a &>> 3)
      let s1 = Self.rotr(b, 17) ^ Self.rotr(b, 19) ^ (b &>> 10)
      w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
    }
    var a = h0
    var b = h1
    var c = h2
    var d = h3
    var e = h4
    var f = h5
    var g = h6
    var h = h7
    var t = 0
    while t < 64 {
      Self.round(a, b, c, &d, e, f, g, &h, k[t] &+ w[t])
      Self.round(h, a, b, &c, d, e, f, &g, k[t &+ 1] &+ w[t &+ 1])
      Self.round(g, h, a, &b, c, d, e, &f, k[t &+ 2] &+ w[t &+ 2])
      Self.round(f, g, h, &a, b, c, d, &e, k[t &+ 3] &+ w[t &+ 3])
      Self.round(e, f, g, &h, a, b, c, &d, k[t &+ 4] &+ w[t &+ 4])
      Self.round(d, e, f, &g, h, a, b, &c, k[t &+ 5] &+ w[t &+ 5])
      Self.round(c, d, e, &f, g, h, a, &b, k[t &+ 6] &+ w[t &+ 6])
      Self.round(b, c, d, &e, f, g, h, &a, k[t &+ 7] &+ w[t &+ 7])
      t &+= 8
    }
    h0 = h0 &+ a
    h1 = h1 &+ b
    h2 = h2 &+ c
    h3 = h3 &+ d
    h4 = h4 &+ e
    h5 = h5 &+ f
    h6 = h6 &+ g
    h7 = h7 &+ h
  }

  func write(to digest: UnsafeMutableRawBufferPointer) {
    for (index, word) in [h0, h1, h2, h3, h4, h5, h6, h7].enumerated() {
      digest.storeBytes(of: word.bigEndian, toByteOffset: index * 4, as: UInt32.self)
    }
  }
}
