// libFuzzer harness for NIP-11 and `nip-pl` push descriptor parsing (module PushDescriptor).
//
// Property: `RelayInformation(lenientJSON:)`, `RelayDocument(bytes:)` and
// `PushDescriptor(strictJSON:)` never crash or hang; every error names a field; the strict
// descriptor and the whole-document reading agree on acceptance and on the error; an accepted
// descriptor keeps the spec's rules (one current key, the required push kinds, urgent kinds
// within push kinds, the `h` grammar, limits ≥ 1 and a lease TTL ≤ 30 days); it encodes to a
// `push` object that parses back equal, alone and inside a document with only the
// advertisement (extra top-level members change nothing); and the whole document re-encodes
// and parses back to an equal document.
import NostrJSON
import PushDescriptor

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError(message()) }
}

func checkRules(_ push: PushDescriptor) {
  check(push.keys.filter(\.isCurrent).count == 1, "not exactly one current key: \(push.keys)")
  check(
    Set(PushDescriptor.requiredPushKinds).isSubset(of: push.pushKinds),
    "push_kinds \(push.pushKinds) lacks a required kind")
  check(
    push.urgentKinds.map { Set($0).isSubset(of: push.pushKinds) } ?? true,
    "urgent_kinds \(push.urgentKinds ?? []) not within push_kinds")
  check(push.hGrammar == PushDescriptor.uuidV4LowercaseGrammar, "h_grammar \(push.hGrammar)")
  let limitation = push.limitation
  let limits = [
    limitation.maxLeaseTTL, limitation.maxLeasesPerPubkey, limitation.maxSubscriptionsPerLease,
    limitation.maxKinds, limitation.maxAuthors, limitation.maxH, limitation.maxTagValues,
    limitation.maxIgnore, limitation.maxContentLen, limitation.maxPlaintextLen,
    limitation.maxEndpointLen, limitation.maxStringLen,
  ]
  check(limits.allSatisfy { $0 >= 1 }, "a limit below 1: \(limitation)")
  check(
    limitation.maxLeaseTTL <= PushLimitation.maxLeaseTTLCeiling, "max_lease_ttl \(limitation.maxLeaseTTL)")
  check(push.origin.utf8.count <= limitation.maxStringLen, "origin longer than max_string_len")
  check(
    push.origin.hasPrefix("ws://") || push.origin.hasPrefix("wss://"), "origin \(push.origin) is not ws(s)://"
  )
}

func checkRoundTrips(_ document: RelayDocument) {
  let push = document.push
  checkRules(push)
  let pushBytes = push.jsonBytes()
  do {
    let reparsed = try PushDescriptor(
      strictPush: try JSONReader().read(pushBytes), pushProtocol: push.pushProtocol)
    check(reparsed == push, "push round trip changed \(push) into \(reparsed)")
  } catch {
    fatalError("an accepted descriptor does not parse back from its encoding: \(error)")
  }
  let bare = JSONObject([
    "supported_extensions": .array([.string(push.pushProtocol.rawValue)]),
    "push": push.jsonValue,
  ])
  do {
    let alone = try PushDescriptor(strictDocument: bare)
    check(alone == push, "the descriptor changed without the other top-level members")
  } catch {
    fatalError("the descriptor fails without the other top-level members: \(error)")
  }
  do {
    let again = try RelayDocument(bytes: document.jsonBytes())
    check(again == document, "document round trip changed the document")
  } catch {
    fatalError("an accepted document does not parse back from its encoding: \(error)")
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
  if let information = try? RelayInformation(lenientJSON: input) {
    check(
      information.ignoredTopLevelKeys.allSatisfy { !RelayInformation.knownMembers.contains($0) },
      "a known member was listed as ignored")
  }
  let strict = Result { () throws(PushDescriptorError) in try PushDescriptor(strictJSON: input) }
  let whole = Result { () throws(PushDescriptorError) in try RelayDocument(bytes: input) }
  switch (strict, whole) {
  case (.success(let push), .success(let document)):
    check(push == document.push, "strict and whole-document readings differ")
    checkRoundTrips(document)
  case (.failure(let error), .failure(let other)):
    check(error.field?.isEmpty == false, "an error names no field: \(error)")
    check(error == other, "strict (\(error)) and whole-document (\(other)) readings fail differently")
  case (.success, .failure(let error)), (.failure(let error), .success):
    fatalError("strict and whole-document readings disagree: \(error)")
  }
  return 0
}
