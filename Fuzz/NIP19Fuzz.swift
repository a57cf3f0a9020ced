// libFuzzer harness for bech32 and NIP-19 decoding (module Bech32).
//
// The first input byte picks a mode.
// - Even: the rest is text (UTF-8, invalid sequences replaced) given to `NIP19Entity(decoding:)`,
//   `Bech32.decode` and `CompactNpub.display`. Property: whatever decodes re-encodes (lower
//   case, no `nostr:`) and decodes back equal; a bech32 string that decodes re-encodes from its
//   words to exactly its lower-case form; the compact display is `Someone` or 8 + `…` + 4.
// - Odd: bits 1–3 pick a prefix (npub, nsec, note, nprofile, nevent, naddr, nrelay, other),
//   bit 4 upper-cases and bit 5 adds `nostr:`; the rest is the payload, wrapped in a valid
//   checksum so the fuzzer reaches the payload and TLV checks. Property: a bare key decodes
//   exactly when it has 32 bytes, to their hex; TLV entities that decode round-trip; unknown
//   prefixes are `unknown_prefix`.
import Bech32

let payloadPrefixes = ["npub", "nsec", "note", "nprofile", "nevent", "naddr", "nrelay", "lnbc"]

func checkRoundTrip(_ entity: NIP19Entity, from text: String) {
  let encoded: String
  do {
    encoded = try entity.encoded()
  } catch {
    fatalError("\(text) decoded to \(entity) which does not encode: \(error)")
  }
  guard encoded == encoded.lowercased(), encoded.hasPrefix(entity.prefix + "1") else {
    fatalError("encoding of \(entity) is not lower-case \(entity.prefix)1…: \(encoded)")
  }
  let again: NIP19Entity
  do {
    again = try NIP19Entity(decoding: encoded)
  } catch {
    fatalError("\(encoded) (re-encoded from \(text)) does not decode: \(error)")
  }
  guard again == entity else {
    fatalError("\(text) decoded to \(entity), but its re-encoding decodes to \(again)")
  }
}

func fuzzText(_ text: String) {
  if let entity = try? NIP19Entity(decoding: text) {
    checkRoundTrip(entity, from: text)
  }
  for limit in [Bech32.Limit.bip173, .nip19] {
    guard let decoded = try? Bech32.decode(text, limit: limit) else { continue }
    guard let encoded = try? Bech32.encode(hrp: decoded.hrp, words: decoded.words, limit: limit),
      encoded == text.lowercased()
    else {
      fatalError("\(text) decodes as bech32 but its words do not re-encode to its lower-case form")
    }
  }
  let display = CompactNpub.display(for: text)
  if display != CompactNpub.fallback {
    guard display.count == CompactNpub.headLength + 1 + CompactNpub.tailLength, display.hasPrefix("npub1")
    else {
      fatalError("compact display of \(text) is \(display)")
    }
  }
}

func fuzzPayload(mode: UInt8, payload: [UInt8]) {
  let prefix = payloadPrefixes[Int(mode >> 1) & 7]
  guard var text = try? Bech32.encode(hrp: prefix, bytes: payload, limit: .nip19) else { return }
  if mode & 0x10 != 0 { text = text.uppercased() }
  if mode & 0x20 != 0 { text = "nostr:" + text }
  let result = Result { () throws(Bech32Error) in try NIP19Entity(decoding: text) }
  switch (prefix, result) {
  case ("npub", .success(.npub(let hex))), ("nsec", .success(.nsec(let hex))),
    ("note", .success(.note(let hex))):
    guard payload.count == 32, hex == hexString(payload) else {
      fatalError("\(text) decoded to \(hex) from a \(payload.count)-byte payload")
    }
  case ("npub", .failure(let error)), ("nsec", .failure(let error)), ("note", .failure(let error)):
    guard payload.count != 32, error.code == .invalidLength else {
      fatalError("a bare \(prefix) with \(payload.count) bytes failed with \(error.code)")
    }
  case ("nrelay", .success), ("lnbc", .success):
    fatalError("\(text) decoded although \(prefix) is no supported entity")
  case ("nrelay", .failure(let error)), ("lnbc", .failure(let error)):
    guard error.code == .unknownPrefix else {
      fatalError("\(prefix) failed with \(error.code), not unknown_prefix")
    }
  case (_, .success(let entity)):
    guard entity.prefix == prefix else { fatalError("\(text) decoded to a \(entity.prefix)") }
    checkRoundTrip(entity, from: text)
  case (_, .failure(let error)):
    guard error.code == .invalidTLV else {
      fatalError("a checksummed \(prefix) payload failed with \(error.code), not invalid_tlv")
    }
  }
}

func hexString(_ bytes: [UInt8]) -> String {
  let digits = Array("0123456789abcdef")
  return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data, size > 0 else { return 0 }
  let mode = data[0]
  let rest = UnsafeBufferPointer(start: data + 1, count: size - 1)
  if mode & 1 == 0 {
    fuzzText(String(decoding: rest, as: UTF8.self))
  } else {
    fuzzPayload(mode: mode, payload: Array(rest))
  }
  return 0
}
