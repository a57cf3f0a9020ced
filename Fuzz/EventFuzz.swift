// libFuzzer harness for event parsing and verification (module NostrEvent).
//
// Property: `Event(json:)` and `verify()` never crash or hang; a field error names its field;
// an accepted event keeps the field rules (lowercase hex lengths, ranges, tag count);
// an event that parses re-encodes through `jsonBytes()` to bytes that parse back to an
// identical event with the same verification outcome; a `.valid` outcome means the id is the
// one recomputed under the reported rule; and the same fields signed with a fixed test key
// verify as `.valid(.common)`, so the fuzzer also reaches the successful signature path.
import NostrEvent
import NostrJSON

/// A fixed test key (SHA-256 of "nostrpushkit-fuzz"), so a run is reproducible except for the
/// BIP-340 auxiliary randomness.
let fuzzKey = try! SecretKey(hex: "497d61b134e1b293d8a57836d3cddb0e43eb68a757961dc14cb737cf9b54632e")

/// Whether `text` is exactly `count` characters of 0-9 and a-f (written out, not `Hex`).
func isLowercaseHex(_ text: String, count: Int) -> Bool {
  text.utf8.count == count
    && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
  let event: Event
  do {
    event = try Event(json: input)
  } catch {
    if error.code == .invalidField, error.field == nil {
      fatalError("an invalid_field error names no field: \(error)")
    }
    return 0
  }
  guard isLowercaseHex(event.id, count: 64), isLowercaseHex(event.pubkey, count: 64),
    isLowercaseHex(event.sig, count: 128), (0...Event.maxCreatedAt).contains(event.createdAt),
    (0...Event.maxKind).contains(event.kind), event.tags.count <= Event.maxTags
  else {
    fatalError("an accepted event breaks a field rule: \(event)")
  }
  let verification = event.verify()
  let encoded = event.jsonBytes()
  let reparsed: Event
  do {
    reparsed = try Event(json: encoded)
  } catch {
    fatalError("an event that parsed does not parse after re-encoding (\(error))")
  }
  guard reparsed == event else {
    fatalError("re-encoding changed the event: \(event) became \(reparsed)")
  }
  guard reparsed.jsonBytes() == encoded else {
    fatalError("encoding the re-parsed event gave different bytes")
  }
  guard reparsed.verify() == verification else {
    fatalError("verification changed after a round trip: \(verification)")
  }
  if case .valid(let rule) = verification, event.computedID(rule: rule) != event.id {
    fatalError("verify() reported valid(\(rule)) but the id differs from the recomputed one")
  }
  let unsigned = UnsignedEvent(
    pubkey: fuzzKey.publicKeyHex, createdAt: event.createdAt, kind: event.kind, tags: event.tags,
    content: event.content)
  let signed: Event
  do {
    signed = try unsigned.signed(with: fuzzKey)
  } catch {
    fatalError("fields of a parsed event could not be signed: \(error)")
  }
  guard signed.verify() == .valid(.common) else {
    fatalError("an event signed with the test key does not verify: \(signed.verify())")
  }
  guard (try? Event(json: signed.jsonBytes())) == signed else {
    fatalError("a freshly signed event does not parse back identical")
  }
  return 0
}
