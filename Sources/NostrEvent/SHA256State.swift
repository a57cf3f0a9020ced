internal import CSHA256

/// The eight working words of one SHA-256 computation and its compression function.
///
/// Blocks are compressed by the CPU's SHA instructions where `CSHA256` finds them (x86-64 with
/// SHA-NI, read once with CPUID), else by the Swift rounds below; both give the same words.
///
/// Every event id goes through `compress`, so it is written for the compiler: the schedule is
/// computed into one stack buffer per call (not per block), the 64 rounds are spelled out with
/// the round constants as immediates and rotate the roles of the words instead of moving them, Σ0/Σ1 use the nested rotation form (three
/// rotations, two xors) and Maj reuses the previous round's `a ^ b`.
struct SHA256State {
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
  /// `previousXor` holds `b ^ c` on entry (the previous round's `a ^ b`) and `a ^ b` on exit.
  @inline(__always)
  private static func round(
    _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
    _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32, _ previousXor: inout UInt32
  ) {
    let sigma1 = rotr(rotr(rotr(e, 14) ^ e, 5) ^ e, 6)
    let choice = g ^ (e & (f ^ g))
    let temp1 = h &+ sigma1 &+ choice &+ kw
    let sigma0 = rotr(rotr(rotr(a, 9) ^ a, 11) ^ a, 2)
    let ab = a ^ b
    let majority = b ^ (ab & previousXor)
    previousXor = ab
    d = d &+ temp1
    h = temp1 &+ sigma0 &+ majority
  }

  /// The next schedule word from w[t−16], w[t−15], w[t−7] and w[t−2].
  @inline(__always)
  private static func schedule(_ w16: UInt32, _ w15: UInt32, _ w7: UInt32, _ w2: UInt32) -> UInt32 {
    let s0 = rotr(rotr(w15, 11) ^ w15, 7) ^ (w15 &>> 3)
    let s1 = rotr(rotr(w2, 2) ^ w2, 17) ^ (w2 &>> 10)
    return w16 &+ s0 &+ w7 &+ s1
  }

  /// σ0 of four schedule words at once.
  @inline(__always)
  private static func smallSigma0(_ x: SIMD4<UInt32>) -> SIMD4<UInt32> {
    // Right shifts and left shifts grouped apart, so that the compiler does not see rotations
    // (vector rotations have no SSE2 instruction and would be split into scalar ones).
    let right = x &>> 3 ^ x &>> 7 ^ x &>> 18
    return right ^ (x &<< 14 ^ x &<< 25)
  }

  /// σ1 of four schedule words at once.
  @inline(__always)
  private static func smallSigma1(_ x: SIMD4<UInt32>) -> SIMD4<UInt32> {
    let right = x &>> 10 ^ x &>> 17 ^ x &>> 19
    return right ^ (x &<< 13 ^ x &<< 15)
  }

  /// Fills w[16..<64] from w[0..<16], four words per step in vector registers (the rounds use
  /// the integer units, so the schedule runs beside them on the vector units). Two words of each
  /// step depend on the two before them, so σ1 is taken twice per step.
  @inline(__always)
  private static func expandSchedule(_ w: UnsafeMutablePointer<UInt32>) {
    let raw = UnsafeMutableRawPointer(w)
    var x0 = raw.loadUnaligned(fromByteOffset: 0, as: SIMD4<UInt32>.self)
    var x1 = raw.loadUnaligned(fromByteOffset: 16, as: SIMD4<UInt32>.self)
    var x2 = raw.loadUnaligned(fromByteOffset: 32, as: SIMD4<UInt32>.self)
    var x3 = raw.loadUnaligned(fromByteOffset: 48, as: SIMD4<UInt32>.self)
    for step in 0..<12 {
      // x0…x3 hold w[t−16..<t]; the next four words are w[t..<t+4].
      let w15 = SIMD4(x0[1], x0[2], x0[3], x1[0])
      let w7 = SIMD4(x2[1], x2[2], x2[3], x3[0])
      let partial = x0 &+ smallSigma0(w15) &+ w7
      let low = partial &+ smallSigma1(SIMD4(x3[2], x3[3], x3[2], x3[3]))
      let high = partial &+ smallSigma1(SIMD4(low[0], low[1], low[0], low[1]))
      let next = SIMD4(low[0], low[1], high[2], high[3])
      raw.storeBytes(of: next, toByteOffset: 64 &+ step &* 16, as: SIMD4<UInt32>.self)
      x0 = x1
      x1 = x2
      x2 = x3
      x3 = next
    }
  }

  /// Which implementation compresses blocks.
  enum Engine: CaseIterable {
    /// The Swift rounds: every CPU.
    case swift
    /// The CPU's SHA instructions through `CSHA256`: only where `hardwareAvailable`.
    case hardware

    /// Whether this CPU has the SHA instructions `CSHA256` uses.
    static let hardwareAvailable = nostrpush_sha256_hardware_available() != 0

    /// The fastest engine this CPU runs.
    static let preferred: Engine = hardwareAvailable ? .hardware : .swift
  }

  /// Compresses `count` consecutive 64-byte blocks starting at `blocks` into the state.
  mutating func compress(_ blocks: UnsafeRawPointer, count: Int, engine: Engine = .preferred) {
    guard count > 0 else { return }
    switch engine {
    case .hardware:
      precondition(Engine.hardwareAvailable, "the CPU has no SHA instructions")
      compressOnHardware(blocks, count: count)
    case .swift:
      compressInSwift(blocks, count: count)
    }
  }

  private mutating func compressOnHardware(_ blocks: UnsafeRawPointer, count: Int) {
    // A homogeneous tuple is laid out as a C array.
    var words = (h0, h1, h2, h3, h4, h5, h6, h7)
    withUnsafeMutableBytes(of: &words) { raw in
      nostrpush_sha256_hardware_blocks(
        raw.baseAddress!.assumingMemoryBound(to: UInt32.self), blocks.assumingMemoryBound(to: UInt8.self),
        count)
    }
    (h0, h1, h2, h3, h4, h5, h6, h7) = words
  }

  private mutating func compressInSwift(_ blocks: UnsafeRawPointer, count: Int) {
    withUnsafeTemporaryAllocation(of: SIMD4<UInt32>.self, capacity: 16) { vectors in
      let schedule = UnsafeMutableRawBufferPointer(vectors).bindMemory(to: UInt32.self)
      var block = blocks
      for _ in 0..<count {
        compress(block, w: schedule.baseAddress!)
        block += 64
      }
    }
  }

  @inline(__always)
  private mutating func compress(_ block: UnsafeRawPointer, w: UnsafeMutablePointer<UInt32>) {
    for t in 0..<16 {
      w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t &* 4, as: UInt32.self))
    }
    Self.expandSchedule(w)
    var a = h0
    var b = h1
    var c = h2
    var d = h3
    var e = h4
    var f = h5
    var g = h6
    var h = h7
    var previousXor = b ^ c
    Self.round(a, b, c, &d, e, f, g, &h, 0x428a_2f98 &+ w[0], &previousXor)
    Self.round(h, a, b, &c, d, e, f, &g, 0x7137_4491 &+ w[1], &previousXor)
    Self.round(g, h, a, &b, c, d, e, &f, 0xb5c0_fbcf &+ w[2], &previousXor)
    Self.round(f, g, h, &a, b, c, d, &e, 0xe9b5_dba5 &+ w[3], &previousXor)
    Self.round(e, f, g, &h, a, b, c, &d, 0x3956_c25b &+ w[4], &previousXor)
    Self.round(d, e, f, &g, h, a, b, &c, 0x59f1_11f1 &+ w[5], &previousXor)
    Self.round(c, d, e, &f, g, h, a, &b, 0x923f_82a4 &+ w[6], &previousXor)
    Self.round(b, c, d, &e, f, g, h, &a, 0xab1c_5ed5 &+ w[7], &previousXor)
    Self.round(a, b, c, &d, e, f, g, &h, 0xd807_aa98 &+ w[8], &previousXor)
    Self.round(h, a, b, &c, d, e, f, &g, 0x1283_5b01 &+ w[9], &previousXor)
    Self.round(g, h, a, &b, c, d, e, &f, 0x2431_85be &+ w[10], &previousXor)
    Self.round(f, g, h, &a, b, c, d, &e, 0x550c_7dc3 &+ w[11], &previousXor)
    Self.round(e, f, g, &h, a, b, c, &d, 0x72be_5d74 &+ w[12], &previousXor)
    Self.round(d, e, f, &g, h, a, b, &c, 0x80de_b1fe &+ w[13], &previousXor)
    Self.round(c, d, e, &f, g, h, a, &b, 0x9bdc_06a7 &+ w[14], &previousXor)
    Self.round(b, c, d, &e, f, g, h, &a, 0xc19b_f174 &+ w[15], &previousXor)
    Self.round(a, b, c, &d, e, f, g, &h, 0xe49b_69c1 &+ w[16], &previousXor)
    Self.round(h, a, b, &c, d, e, f, &g, 0xefbe_4786 &+ w[17], &previousXor)
    Self.round(g, h, a, &b, c, d, e, &f, 0x0fc1_9dc6 &+ w[18], &previousXor)
    Self.round(f, g, h, &a, b, c, d, &e, 0x240c_a1cc &+ w[19], &previousXor)
    Self.round(e, f, g, &h, a, b, c, &d, 0x2de9_2c6f &+ w[20], &previousXor)
    Self.round(d, e, f, &g, h, a, b, &c, 0x4a74_84aa &+ w[21], &previousXor)
    Self.round(c, d, e, &f, g, h, a, &b, 0x5cb0_a9dc &+ w[22], &previousXor)
    Self.round(b, c, d, &e, f, g, h, &a, 0x76f9_88da &+ w[23], &previousXor)
    Self.round(a, b, c, &d, e, f, g, &h, 0x983e_5152 &+ w[24], &previousXor)
    Self.round(h, a, b, &c, d, e, f, &g, 0xa831_c66d &+ w[25], &previousXor)
    Self.round(g, h, a, &b, c, d, e, &f, 0xb003_27c8 &+ w[26], &previousXor)
    Self.round(f, g, h, &a, b, c, d, &e, 0xbf59_7fc7 &+ w[27], &previousXor)
    Self.round(e, f, g, &h, a, b, c, &d, 0xc6e0_0bf3 &+ w[28], &previousXor)
    Self.round(d, e, f, &g, h, a, b, &c, 0xd5a7_9147 &+ w[29], &previousXor)
    Self.round(c, d, e, &f, g, h, a, &b, 0x06ca_6351 &+ w[30], &previousXor)
    Self.round(b, c, d, &e, f, g, h, &a, 0x1429_2967 &+ w[31], &previousXor)
    Self.round(a, b, c, &d, e, f, g, &h, 0x27b7_0a85 &+ w[32], &previousXor)
    Self.round(h, a, b, &c, d, e, f, &g, 0x2e1b_2138 &+ w[33], &previousXor)
    Self.round(g, h, a, &b, c, d, e, &f, 0x4d2c_6dfc &+ w[34], &previousXor)
    Self.round(f, g, h, &a, b, c, d, &e, 0x5338_0d13 &+ w[35], &previousXor)
    Self.round(e, f, g, &h, a, b, c, &d, 0x650a_7354 &+ w[36], &previousXor)
    Self.round(d, e, f, &g, h, a, b, &c, 0x766a_0abb &+ w[37], &previousXor)
    Self.round(c, d, e, &f, g, h, a, &b, 0x81c2_c92e &+ w[38], &previousXor)
    Self.round(b, c, d, &e, f, g, h, &a, 0x9272_2c85 &+ w[39], &previousXor)
    Self.round(a, b, c, &d, e, f, g, &h, 0xa2bf_e8a1 &+ w[40], &previousXor)
    Self.round(h, a, b, &c, d, e, f, &g, 0xa81a_664b &+ w[41], &previousXor)
    Self.round(g, h, a, &b, c, d, e, &f, 0xc24b_8b70 &+ w[42], &previousXor)
    Self.round(f, g, h, &a, b, c, d, &e, 0xc76c_51a3 &+ w[43], &previousXor)
    Self.round(e, f, g, &h, a, b, c, &d, 0xd192_e819 &+ w[44], &previousXor)
    Self.round(d, e, f, &g, h, a, b, &c, 0xd699_0624 &+ w[45], &previousXor)
    Self.round(c, d, e, &f, g, h, a, &b, 0xf40e_3585 &+ w[46], &previousXor)
    Self.round(b, c, d, &e, f, g, h, &a, 0x106a_a070 &+ w[47], &previousXor)
    Self.round(a, b, c, &d, e, f, g, &h, 0x19a4_c116 &+ w[48], &previousXor)
    Self.round(h, a, b, &c, d, e, f, &g, 0x1e37_6c08 &+ w[49], &previousXor)
    Self.round(g, h, a, &b, c, d, e, &f, 0x2748_774c &+ w[50], &previousXor)
    Self.round(f, g, h, &a, b, c, d, &e, 0x34b0_bcb5 &+ w[51], &previousXor)
    Self.round(e, f, g, &h, a, b, c, &d, 0x391c_0cb3 &+ w[52], &previousXor)
    Self.round(d, e, f, &g, h, a, b, &c, 0x4ed8_aa4a &+ w[53], &previousXor)
    Self.round(c, d, e, &f, g, h, a, &b, 0x5b9c_ca4f &+ w[54], &previousXor)
    Self.round(b, c, d, &e, f, g, h, &a, 0x682e_6ff3 &+ w[55], &previousXor)
    Self.round(a, b, c, &d, e, f, g, &h, 0x748f_82ee &+ w[56], &previousXor)
    Self.round(h, a, b, &c, d, e, f, &g, 0x78a5_636f &+ w[57], &previousXor)
    Self.round(g, h, a, &b, c, d, e, &f, 0x84c8_7814 &+ w[58], &previousXor)
    Self.round(f, g, h, &a, b, c, d, &e, 0x8cc7_0208 &+ w[59], &previousXor)
    Self.round(e, f, g, &h, a, b, c, &d, 0x90be_fffa &+ w[60], &previousXor)
    Self.round(d, e, f, &g, h, a, b, &c, 0xa450_6ceb &+ w[61], &previousXor)
    Self.round(c, d, e, &f, g, h, a, &b, 0xbef9_a3f7 &+ w[62], &previousXor)
    Self.round(b, c, d, &e, f, g, h, &a, 0xc671_78f2 &+ w[63], &previousXor)
    h0 = h0 &+ a
    h1 = h1 &+ b
    h2 = h2 &+ c
    h3 = h3 &+ d
    h4 = h4 &+ e
    h5 = h5 &+ f
    h6 = h6 &+ g
    h7 = h7 &+ h
  }

  /// Writes the digest (the eight words, big-endian) into the first 32 bytes of `digest`.
  func write(to digest: UnsafeMutableRawBufferPointer) {
    digest.storeBytes(of: h0.bigEndian, toByteOffset: 0, as: UInt32.self)
    digest.storeBytes(of: h1.bigEndian, toByteOffset: 4, as: UInt32.self)
    digest.storeBytes(of: h2.bigEndian, toByteOffset: 8, as: UInt32.self)
    digest.storeBytes(of: h3.bigEndian, toByteOffset: 12, as: UInt32.self)
    digest.storeBytes(of: h4.bigEndian, toByteOffset: 16, as: UInt32.self)
    digest.storeBytes(of: h5.bigEndian, toByteOffset: 20, as: UInt32.self)
    digest.storeBytes(of: h6.bigEndian, toByteOffset: 24, as: UInt32.self)
    digest.storeBytes(of: h7.bigEndian, toByteOffset: 28, as: UInt32.self)
  }
}
