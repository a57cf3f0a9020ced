// libFuzzer harness for NIP-44 v2 decryption (module NIP44).
//
// The first input byte picks a mode (its value modulo 3).
// - 0: bytes 1–32 are a conversation key, the rest is a payload given to `decrypt` as raw bytes.
//   Property: it never crashes; a refusal carries one of decrypt's eight codes; a payload that
//   decrypts is exactly what `encrypt` writes for that text under that key with the payload's own
//   nonce (the only accepted spelling of a plaintext).
// - 1: bytes 1–32 and 33–64 are two secret keys, 65–96 an x coordinate, the rest a payload.
//   Property: valid secrets agree from both sides (`conv(a, B) == conv(b, A)`); the x coordinate is
//   accepted or refused with `invalid_public_key` only; the payload is then checked as in mode 0
//   under `conv(a, B)`.
// - 2: bytes 1–32 a conversation key, 33–64 a nonce, 65–66 a position and 67 a byte to mix in,
//   the rest a plaintext. Property: encrypt refuses exactly the lengths outside 1…65 535 (and the
//   harness's non-UTF-8 inputs never reach it); what it writes decrypts to the same bytes; the
//   payload with one character changed is refused.
import Foundation
import NIP44
import NostrEvent

let decryptCodes: Set<NIP44Error.Code> = [
  .unsupportedVersion, .invalidPayloadSize, .invalidBase64, .invalidDataSize, .invalidMAC, .invalidPadding,
  .invalidUTF8,
]

func bytes(_ input: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [UInt8] {
  var output = [UInt8](repeating: 0, count: range.count)
  for index in range where index < input.count { output[index - range.lowerBound] = input[index] }
  return output
}

func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

func checkDecrypt(_ payload: [UInt8], key: NIP44.ConversationKey) {
  let result = payload.withUnsafeBytes { raw in
    Result { () throws(NIP44Error) in try NIP44.decrypt(bytes: raw, conversationKey: key) }
  }
  switch result {
  case .failure(let error):
    guard decryptCodes.contains(error.code) else { fatalError("decrypt failed with \(error.code)") }
  case .success(let plaintext):
    guard let text = String(validating: payload, as: UTF8.self), let data = Data(base64Encoded: text) else {
      fatalError("an accepted payload is not base64")
    }
    let nonce = Array(data[1..<33])
    let again: String
    do {
      again = try NIP44.encrypt(plaintext, conversationKey: key, nonce: nonce)
    } catch {
      fatalError("the plaintext of an accepted payload does not encrypt: \(error)")
    }
    guard again == text else { fatalError("accepted \(text), but its plaintext encrypts to \(again)") }
  }
}

func fuzzKeys(_ input: UnsafeBufferPointer<UInt8>) {
  let x = hex(bytes(input, 65..<97))
  guard let a = try? SecretKey(bytes: bytes(input, 1..<33)) else { return }
  do {
    _ = try NIP44.ConversationKey(secretKey: a, publicKey: x)
  } catch {
    guard error.code == .invalidPublicKey else { fatalError("an x coordinate failed with \(error.code)") }
  }
  guard let b = try? SecretKey(bytes: bytes(input, 33..<65)) else { return }
  let forward: NIP44.ConversationKey
  do {
    forward = try NIP44.ConversationKey(secretKey: a, publicKey: b.publicKeyHex)
    let backward = try NIP44.ConversationKey(secretKey: b, publicKey: a.publicKeyHex)
    guard forward.hex == backward.hex else { fatalError("conv(a, B) != conv(b, A)") }
  } catch {
    fatalError("the public key of a valid secret was refused: \(error)")
  }
  if input.count > 97 { checkDecrypt(Array(input[97...]), key: forward) }
}

func fuzzEncrypt(_ input: UnsafeBufferPointer<UInt8>, key: NIP44.ConversationKey) {
  let nonce = bytes(input, 33..<65)
  let position = Int(input.count > 66 ? UInt16(input[65]) << 8 | UInt16(input[66]) : 0)
  let mix = input.count > 67 ? input[67] : 1
  let plaintextBytes = input.count > 68 ? Array(input[68...]) : []
  guard let plaintext = String(validating: plaintextBytes, as: UTF8.self) else { return }
  let payload: String
  do {
    payload = try NIP44.encrypt(plaintext, conversationKey: key, nonce: nonce)
  } catch {
    guard error.code == .invalidPlaintextLength, plaintextBytes.isEmpty || plaintextBytes.count > 65_535
    else {
      fatalError("encrypt of \(plaintextBytes.count) bytes failed with \(error.code)")
    }
    return
  }
  guard plaintextBytes.count >= 1 else { fatalError("encrypt accepted an empty plaintext") }
  let decrypted: String
  do {
    decrypted = try NIP44.decrypt(payload, conversationKey: key)
  } catch {
    fatalError("a fresh payload does not decrypt: \(error)")
  }
  guard Array(decrypted.utf8) == plaintextBytes else { fatalError("the round trip changed the text") }
  var changed = Array(payload.utf8)
  let index = position % changed.count
  let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=#-_ \n".utf8)
  let replacement = alphabet[Int(mix) % alphabet.count]
  guard changed[index] != replacement else { return }
  changed[index] = replacement
  let refused = changed.withUnsafeBytes { raw in
    (try? NIP44.decrypt(bytes: raw, conversationKey: key)) == nil
  }
  guard refused else { fatalError("a payload with character \(index) changed still decrypts") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data, size > 0 else { return 0 }
  let input = UnsafeBufferPointer(start: data, count: size)
  switch input[0] % 3 {
  case 0:
    guard let key = try? NIP44.ConversationKey(bytes: bytes(input, 1..<33)) else {
      fatalError("32 bytes refused")
    }
    checkDecrypt(size > 33 ? Array(input[33...]) : [], key: key)
  case 1:
    fuzzKeys(input)
  default:
    guard let key = try? NIP44.ConversationKey(bytes: bytes(input, 1..<33)) else {
      fatalError("32 bytes refused")
    }
    fuzzEncrypt(input, key: key)
  }
  return 0
}
