/// SHA-1 (FIPS 180-4), used only for the WebSocket handshake's `Sec-WebSocket-Accept` value.
///
/// SHA-1 is broken for collision resistance; RFC 6455 uses it only to prove that the server read
/// the handshake, so it stays internal to this module and is used for nothing else.
enum SHA1 {
  /// The 20-byte digest of `message`.
  static func hash(_ message: [UInt8]) -> [UInt8] {
    var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
    var padded = message
    padded.append(0x80)
    while padded.count % 64 != 56 { padded.append(0) }
    let bitLength = UInt64(message.count) &* 8
    for shift in stride(from: 56, through: 0, by: -8) {
      padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
    }
    var schedule = [UInt32](repeating: 0, count: 80)
    for blockStart in stride(from: 0, to: padded.count, by: 64) {
      for index in 0..<16 {
        let offset = blockStart + index * 4
        schedule[index] =
          UInt32(padded[offset]) << 24 | UInt32(padded[offset + 1]) << 16 | UInt32(padded[offset + 2]) << 8
          | UInt32(padded[offset + 3])
      }
      for index in 16..<80 {
        let mixed = schedule[index - 3] ^ schedule[index - 8] ^ schedule[index - 14] ^ schedule[index - 16]
        schedule[index] = mixed.rotatedLeft(by: 1)
      }
      var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
      for index in 0..<80 {
        let mixing: UInt32
        let constant: UInt32
        switch index {
        case 0..<20:
          mixing = (b & c) | (~b & d)
          constant = 0x5A82_7999
        case 20..<40:
          mixing = b ^ c ^ d
          constant = 0x6ED9_EBA1
        case 40..<60:
          mixing = (b & c) | (b & d) | (c & d)
          constant = 0x8F1B_BCDC
        default:
          mixing = b ^ c ^ d
          constant = 0xCA62_C1D6
        }
        let next = a.rotatedLeft(by: 5) &+ mixing &+ e &+ constant &+ schedule[index]
        e = d
        d = c
        c = b.rotatedLeft(by: 30)
        b = a
        a = next
      }
      state[0] = state[0] &+ a
      state[1] = state[1] &+ b
      state[2] = state[2] &+ c
      state[3] = state[3] &+ d
      state[4] = state[4] &+ e
    }
    var digest: [UInt8] = []
    digest.reserveCapacity(20)
    for word in state {
      for shift in stride(from: 24, through: 0, by: -8) {
        digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
      }
    }
    return digest
  }
}

extension UInt32 {
  fileprivate func rotatedLeft(by count: UInt32) -> UInt32 {
    (self << count) | (self >> (32 - count))
  }
}
