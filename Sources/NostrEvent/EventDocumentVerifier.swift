import NostrJSON

/// Checks event documents straight from their JSON bytes: id and signature, without building
/// an `Event`, with one reused buffer for the canonical serialization.
///
/// `nostr-push verify --jsonl` and the benchmarks give each worker thread one verifier (it is a
/// class that owns its buffer, not `Sendable`). A document in the common shape
/// (`EventFastReader`) is located in place, its canonical serialization written once into the
/// buffer and hashed, its id, key and signature decoded from the document's hex; any other
/// document is `.uncommonShape`, and the caller reads it the general way for the exact error.
/// The outcome is the one `Event(json:)` + `verify()` gives for the same bytes.
package final class EventDocumentVerifier {
  /// The outcome for one document; offsets are those of the id's 64 hex digits in it.
  package enum Outcome: Equatable, Sendable {
    /// The id matches the serialization under the rule and the signature verifies.
    case valid(NostrStringEscaper.Rule, idOffset: Int)
    /// The id is not the SHA-256 of the serialization under either rule.
    case idMismatch(idOffset: Int)
    /// The signature does not verify for the id and pubkey.
    case badSignature(idOffset: Int)
    /// Not an event in the common shape (or not valid JSON): read it the general way.
    case uncommonShape
  }

  /// The buffer kept between documents (below malloc's mmap threshold, so that a verifier per
  /// batch chunk costs no system call); a longer document takes a buffer of its own.
  package static let retainedBytes = 64 * 1024

  private let buffer: UnsafeMutableRawBufferPointer

  /// A verifier with its buffer.
  package init() {
    buffer = .allocate(byteCount: Self.retainedBytes, alignment: 16)
  }

  deinit {
    buffer.deallocate()
  }

  /// The outcome for the document in `document`.
  package func verify(_ document: UnsafeRawBufferPointer) -> Outcome {
    guard document.count <= JSONReader.defaultMaxBytes, document.baseAddress != nil else {
      return .uncommonShape
    }
    var reader = EventFastReader(document)
    guard let fields = reader.readDocument() else { return .uncommonShape }
    // The serialization is never longer than the document.
    let needed = document.count + 256
    if needed <= buffer.count {
      return verify(fields, of: reader, in: buffer)
    }
    let large = UnsafeMutableRawBufferPointer.allocate(byteCount: needed, alignment: 16)
    defer { large.deallocate() }
    return verify(fields, of: reader, in: large)
  }

  /// The outcome for an event already located by `reader` (an element of an answer, such as a
  /// roster), its serialization written into this verifier's buffer when it fits, else streamed
  /// through SHA-256 window by window (`streamingDigest`), never held whole.
  func verify(_ fields: EventFields, of reader: EventFastReader) -> Outcome {
    let needed = fields.tags.count + fields.content.count + 512
    if needed <= buffer.count {
      return verify(fields, of: reader, in: buffer)
    }
    let document = reader.documentBytes
    var id = [UInt8](repeating: 0, count: 32)
    var key = [UInt8](repeating: 0, count: 32)
    var signature = [UInt8](repeating: 0, count: 64)
    func hex(_ offset: Int, _ count: Int) -> UnsafeRawBufferPointer {
      UnsafeRawBufferPointer(rebasing: document[offset..<(offset + count)])
    }
    guard id.withUnsafeMutableBytes({ Hex.decode(utf8: hex(fields.id, 64), into: $0) }),
      key.withUnsafeMutableBytes({ Hex.decode(utf8: hex(fields.pubkey, 64), into: $0) }),
      signature.withUnsafeMutableBytes({ Hex.decode(utf8: hex(fields.sig, 128), into: $0) })
    else { return .uncommonShape }
    var rule = NostrStringEscaper.Rule.common
    guard var digest = streamingDigest(fields, of: reader, rule: rule) else { return .uncommonShape }
    if digest != id {
      guard let literal = streamingDigest(fields, of: reader, rule: .literal) else { return .uncommonShape }
      guard literal == id else { return .idMismatch(idOffset: fields.id) }
      digest = literal
      rule = .literal
    }
    let signed = signature.withUnsafeBytes { sig in
      id.withUnsafeBytes { message in
        key.withUnsafeBytes { publicKey in
          Secp256k1.verify(signature: sig, message: message, publicKey: publicKey)
        }
      }
    }
    return signed ? .valid(rule, idOffset: fields.id) : .badSignature(idOffset: fields.id)
  }

  /// The SHA-256 of the serialization under `rule`, written into a window of this verifier's
  /// buffer size plus room for the largest string (`limits.maxStringBytes`, else the document's
  /// size) and hashed each time it passes the buffer's size; nil on a bad escape or UTF-8.
  private func streamingDigest(
    _ fields: EventFields, of reader: EventFastReader, rule: NostrStringEscaper.Rule
  )
    -> [UInt8]?
  {
    let margin = (reader.limits?.maxStringBytes ?? reader.documentBytes.count) + 512
    let window = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.retainedBytes + margin, alignment: 16)
    defer { window.deallocate() }
    let base = window.baseAddress!
    var stream = SHA256Stream()
    let threshold = Self.retainedBytes
    let written = CanonicalSerializer.write(fields, of: reader, rule: rule, to: base) { cursor in
      let count = cursor - base
      guard count >= threshold else { return cursor }
      stream.update(UnsafeRawPointer(base), count: count)
      return base
    }
    guard let written else { return nil }
    stream.update(UnsafeRawPointer(base), count: written)
    var digest = [UInt8](repeating: 0, count: 32)
    digest.withUnsafeMutableBytes { stream.finish(into: $0) }
    return digest
  }

  private func verify(
    _ fields: EventFields, of reader: EventFastReader, in buffer: UnsafeMutableRawBufferPointer
  ) -> Outcome {
    let document = reader.documentBytes
    // [0, 32) id, [32, 64) key, [64, 128) signature, [128, 160) digest, then the serialization.
    let base = buffer.baseAddress!
    let idBytes = UnsafeMutableRawBufferPointer(start: base, count: 32)
    let keyBytes = UnsafeMutableRawBufferPointer(start: base + 32, count: 32)
    let sigBytes = UnsafeMutableRawBufferPointer(start: base + 64, count: 64)
    let digest = UnsafeMutableRawBufferPointer(start: base + 128, count: 32)
    let output = base + 160
    func hex(_ offset: Int, _ count: Int) -> UnsafeRawBufferPointer {
      UnsafeRawBufferPointer(rebasing: document[offset..<(offset + count)])
    }
    guard Hex.decode(utf8: hex(fields.id, 64), into: idBytes),
      Hex.decode(utf8: hex(fields.pubkey, 64), into: keyBytes),
      Hex.decode(utf8: hex(fields.sig, 128), into: sigBytes)
    else { return .uncommonShape }
    guard let written = CanonicalSerializer.write(fields, of: reader, rule: .common, to: output)
    else { return .uncommonShape }
    var rule = NostrStringEscaper.Rule.common
    NostrSHA256.hash(buffer: UnsafeRawBufferPointer(start: output, count: written), into: digest)
    if !digest.elementsEqual(idBytes) {
      // The literal form differs only when a string holds a control character without a short
      // escape; otherwise it hashes the same and the id still does not match.
      guard let literal = CanonicalSerializer.write(fields, of: reader, rule: .literal, to: output)
      else { return .uncommonShape }
      NostrSHA256.hash(buffer: UnsafeRawBufferPointer(start: output, count: literal), into: digest)
      guard digest.elementsEqual(idBytes) else { return .idMismatch(idOffset: fields.id) }
      rule = .literal
    }
    let signed = Secp256k1.verify(
      signature: UnsafeRawBufferPointer(sigBytes), message: UnsafeRawBufferPointer(idBytes),
      publicKey: UnsafeRawBufferPointer(keyBytes))
    return signed ? .valid(rule, idOffset: fields.id) : .badSignature(idOffset: fields.id)
  }
}
