import NostrEvent

/// The ChaCha20 stream cipher of RFC 8439 §2.3–2.4: 32-byte key, 12-byte nonce, 32-bit block
/// counter, keystream XOR. The bare cipher, not the AEAD.
///
/// NIP-44 starts the counter at 0; its largest payload (65 537 bytes of padded plaintext) needs
/// 1 025 blocks, far below the 2³² a counter allows. The input state and each keystream block live
/// in one temporary buffer that is wiped before returning (the round's working words are locals).
/// `package` only so that the benchmark's ChaCha20 row can time it; apps use `NIP44`.
package enum ChaCha20 {
  /// The key length.
  static let keyCount = 32
  /// The nonce length.
  static let nonceCount = 12
  /// The keystream block length.
  static let blockCount = 64

  /// XORs `data` in place with the keystream of `key` and `nonce` from block `counter` on.
  package static func apply(
    key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, counter: UInt32,
    to data: UnsafeMutableRawBufferPointer
  ) {
    precondition(key.count == keyCount && nonce.count == nonceCount)
    precondition((data.count + blockCount - 1) / blockCount <= Int(UInt32.max - counter) + 1)
    // Words 0..<16: the input state; 16..<80: four keystream blocks, word-major. A tail of one to
    // three blocks is cut from four as well: one vector pass costs about what one scalar block does.
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { words in
      let raw = UnsafeMutableRawBufferPointer(words)
      defer { SystemRandom.wipe(raw) }
      setUp(words.baseAddress!, key: key, nonce: nonce, counter: counter)
      let input = UnsafePointer(words.baseAddress!)
      let fourStreams = words.baseAddress! + 16
      guard let base = data.baseAddress else { return }
      var offset = 0
      let rotations = Rotations(left: SIMD4(16, 12, 8, 7), right: SIMD4(16, 20, 24, 25))
      while offset < data.count {
        fourBlocks(input, into: fourStreams, rotations: rotations)
        let count = min(4 * blockCount, data.count - offset)
        let wholeBlocks = count / blockCount
        for lane in 0..<wholeBlocks {
          for index in 0..<16 {
            let position = offset &+ lane &* blockCount &+ index &* 4
            let word = base.loadUnaligned(fromByteOffset: position, as: UInt32.self)
            let key = fourStreams[index &* 4 &+ lane].littleEndian
            base.storeBytes(of: word ^ key, toByteOffset: position, as: UInt32.self)
          }
        }
        for index in (wholeBlocks * blockCount)..<count {
          data[offset + index] ^= streamByte(fourStreams, index)
        }
        words[12] &+= 4
        offset += count
      }
    }
  }

  /// The quarter round's rotation counts as separate left and right shifts.
  ///
  /// Passed in from outside `fourBlocks` so that the compiler sees two independent shifts, not a
  /// rotation: x86-64's baseline (SSE2) has no vector rotate, and a recognised one is split into
  /// four scalar rotations, which made this path slower than one block at a time.
  package struct Rotations {
    let left: SIMD4<UInt32>
    let right: SIMD4<UInt32>
  }

  /// Four consecutive keystream blocks (counters `input[12]` … `input[12] + 3`) at once, one per
  /// vector lane; `output[4 * i + lane]` is word i of block `lane`.
  ///
  /// `package` and never inlined so that the shift counts stay opaque to the optimizer (see
  /// `Rotations`).
  @inline(never)
  package static func fourBlocks(
    _ input: UnsafePointer<UInt32>, into output: UnsafeMutablePointer<UInt32>, rotations: Rotations
  ) {
    let l16 = rotations.left[0]
    let l12 = rotations.left[1]
    let l8 = rotations.left[2]
    let l7 = rotations.left[3]
    let r16 = rotations.right[0]
    let r20 = rotations.right[1]
    let r24 = rotations.right[2]
    let r25 = rotations.right[3]
    @inline(__always)
    func addXorRotate(
      _ sum: inout SIMD4<UInt32>, _ addend: SIMD4<UInt32>, _ target: inout SIMD4<UInt32>, _ left: UInt32,
      _ right: UInt32
    ) {
      sum &+= addend
      target ^= sum
      target = target &<< left | target &>> right
    }
    @inline(__always)
    func quarterRound(
      _ a: inout SIMD4<UInt32>, _ b: inout SIMD4<UInt32>, _ c: inout SIMD4<UInt32>, _ d: inout SIMD4<UInt32>
    ) {
      addXorRotate(&a, b, &d, l16, r16)
      addXorRotate(&c, d, &b, l12, r20)
      addXorRotate(&a, b, &d, l8, r24)
      addXorRotate(&c, d, &b, l7, r25)
    }
    let counters = SIMD4<UInt32>(input[12], input[12] &+ 1, input[12] &+ 2, input[12] &+ 3)
    var x0 = SIMD4(repeating: input[0])
    var x1 = SIMD4(repeating: input[1])
    var x2 = SIMD4(repeating: input[2])
    var x3 = SIMD4(repeating: input[3])
    var x4 = SIMD4(repeating: input[4])
    var x5 = SIMD4(repeating: input[5])
    var x6 = SIMD4(repeating: input[6])
    var x7 = SIMD4(repeating: input[7])
    var x8 = SIMD4(repeating: input[8])
    var x9 = SIMD4(repeating: input[9])
    var x10 = SIMD4(repeating: input[10])
    var x11 = SIMD4(repeating: input[11])
    var x12 = counters
    var x13 = SIMD4(repeating: input[13])
    var x14 = SIMD4(repeating: input[14])
    var x15 = SIMD4(repeating: input[15])
    for _ in 0..<10 {
      quarterRound(&x0, &x4, &x8, &x12)
      quarterRound(&x1, &x5, &x9, &x13)
      quarterRound(&x2, &x6, &x10, &x14)
      quarterRound(&x3, &x7, &x11, &x15)
      quarterRound(&x0, &x5, &x10, &x15)
      quarterRound(&x1, &x6, &x11, &x12)
      quarterRound(&x2, &x7, &x8, &x13)
      quarterRound(&x3, &x4, &x9, &x14)
    }
    let raw = UnsafeMutableRawPointer(output)
    func store(_ value: SIMD4<UInt32>, _ index: Int, _ initial: SIMD4<UInt32>) {
      raw.storeBytes(of: value &+ initial, toByteOffset: index &* 16, as: SIMD4<UInt32>.self)
    }
    store(x0, 0, SIMD4(repeating: input[0]))
    store(x1, 1, SIMD4(repeating: input[1]))
    store(x2, 2, SIMD4(repeating: input[2]))
    store(x3, 3, SIMD4(repeating: input[3]))
    store(x4, 4, SIMD4(repeating: input[4]))
    store(x5, 5, SIMD4(repeating: input[5]))
    store(x6, 6, SIMD4(repeating: input[6]))
    store(x7, 7, SIMD4(repeating: input[7]))
    store(x8, 8, SIMD4(repeating: input[8]))
    store(x9, 9, SIMD4(repeating: input[9]))
    store(x10, 10, SIMD4(repeating: input[10]))
    store(x11, 11, SIMD4(repeating: input[11]))
    store(x12, 12, counters)
    store(x13, 13, SIMD4(repeating: input[13]))
    store(x14, 14, SIMD4(repeating: input[14]))
    store(x15, 15, SIMD4(repeating: input[15]))
  }

  /// The 64-byte keystream block `counter` of `key` and `nonce` (RFC 8439 §2.3's block function),
  /// for tests.
  static func block(key: [UInt8], nonce: [UInt8], counter: UInt32) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: blockCount)
    key.withUnsafeBytes { key in
      nonce.withUnsafeBytes { nonce in
        output.withUnsafeMutableBytes { apply(key: key, nonce: nonce, counter: counter, to: $0) }
      }
    }
    return output
  }

  /// The byte `index` of the keystream that four word-major blocks make: block `index / 64`,
  /// little-endian.
  @inline(__always)
  private static func streamByte(_ fourStreams: UnsafeMutablePointer<UInt32>, _ index: Int) -> UInt8 {
    let lane = index / blockCount
    let word = (index % blockCount) / 4
    return UInt8(truncatingIfNeeded: fourStreams[word * 4 + lane] >> (UInt32(index % 4) * 8))
  }

  /// Writes the initial state: the constants "expand 32-byte k", the key, the counter, the nonce.
  private static func setUp(
    _ state: UnsafeMutablePointer<UInt32>, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
    counter: UInt32
  ) {
    state[0] = 0x6170_7865
    state[1] = 0x3320_646e
    state[2] = 0x7962_2d32
    state[3] = 0x6b20_6574
    for index in 0..<8 {
      state[4 + index] = UInt32(littleEndian: key.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
    }
    state[12] = counter
    for index in 0..<3 {
      state[13 + index] = UInt32(
        littleEndian: nonce.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
    }
  }
}
