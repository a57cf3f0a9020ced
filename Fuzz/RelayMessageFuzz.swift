// libFuzzer harness for the NIP-01 relay message parser (module NostrWebSocket over NostrJSON).
//
// Property: `RelayMessage.parse` never crashes or hangs; whatever it accepts, written back as a
// canonical array, parses to the same message; what the strict reader refuses, it refuses.
import NostrJSON
import NostrWebSocket

func canonical(_ message: RelayMessage) -> JSONValue {
  switch message {
  case .event(let subscription, let event): .array([.string("EVENT"), .string(subscription), event])
  case .ok(let id, let accepted, let text):
    .array([.string("OK"), .string(id), .bool(accepted), .string(text)])
  case .endOfStoredEvents(let subscription): .array([.string("EOSE"), .string(subscription)])
  case .closed(let subscription, let text): .array([.string("CLOSED"), .string(subscription), .string(text)])
  case .notice(let text): .array([.string("NOTICE"), .string(text)])
  case .auth(let challenge): .array([.string("AUTH"), .string(challenge)])
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
  guard let message = RelayMessage.parse(bytes) else { return 0 }
  guard (try? JSONReader(maxDepth: RelayMessage.maxDepth).read(bytes)) != nil else {
    fatalError("a message the strict reader refuses was parsed")
  }
  let written = JSONWriter.bytes(canonical(message))
  guard RelayMessage.parse(written) == message else {
    fatalError("message does not round-trip: \(JSONWriter.string(canonical(message)))")
  }
  return 0
}
