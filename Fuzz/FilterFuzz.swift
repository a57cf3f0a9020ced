// libFuzzer harness for the NIP-01 filter parser (module NostrEvent over NostrJSON).
//
// The input is read by the strict reader; an object is one filter, an array a list of filters
// (as in a REQ). Property: `Filter(jsonValue:)` never crashes or hangs; a value error names its
// member; a filter that parses writes, through `jsonValue` and `JSONWriter`, to bytes that
// read and parse back to an equal filter that makes the same match decisions on sample events.
import NostrEvent
import NostrJSON

/// Events the parsed filters are matched against: two kinds, two authors, tags `e`, `p`, `t`.
let sampleEvents: [Event] = [
  #"{"id":"\#(String(repeating: "a", count: 64))","pubkey":"\#(String(repeating: "b", count: 64))","created_at":1700000000,"kind":1,"tags":[["e","\#(String(repeating: "c", count: 64))"],["t","nostr"]],"content":"hi","sig":"\#(String(repeating: "d", count: 128))"}"#,
  #"{"id":"\#(String(repeating: "1", count: 64))","pubkey":"\#(String(repeating: "2", count: 64))","created_at":0,"kind":9,"tags":[["p","\#(String(repeating: "b", count: 64))"],["h","x"]],"content":"","sig":"\#(String(repeating: "3", count: 128))"}"#,
].map { try! Event(json: $0) }

func checkFilter(_ value: JSONValue) {
  let filter: Filter
  do {
    filter = try Filter(jsonValue: value)
  } catch {
    if error.code != .malformedJSON, error.field == nil {
      fatalError("a \(error.code) filter error names no member: \(error)")
    }
    return
  }
  let written = JSONWriter.bytes(filter.jsonValue)
  let reparsed: Filter
  do {
    reparsed = try Filter(jsonValue: try JSONReader().read(written))
  } catch {
    fatalError(
      "a parsed filter does not parse back from its own JSON (\(error)): \(JSONWriter.string(filter.jsonValue))"
    )
  }
  guard reparsed == filter else {
    fatalError("filter round trip changed \(filter) into \(reparsed)")
  }
  for event in sampleEvents where filter.matches(event) != reparsed.matches(event) {
    fatalError("equal filters disagree on \(event.id)")
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
  guard let value = try? JSONReader().read(buffer: input) else { return 0 }
  if case .array(let elements) = value {
    for element in elements { checkFilter(element) }
    let filters = elements.compactMap { try? Filter(jsonValue: $0) }
    for event in sampleEvents { _ = filters.matches(event) }
  } else {
    checkFilter(value)
  }
  return 0
}
