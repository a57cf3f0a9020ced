import NostrJSON

/// A relay information document read both ways at once: the whole document permissively as
/// `RelayInformation`, the advertisement and `push` strictly as `PushDescriptor`.
///
/// This is what discovery returns and what the CLI prints; a relay builds one from its parts to
/// serve it.
public struct RelayDocument: Sendable, Hashable {
  /// Everything in the document, read permissively (the raw object included).
  public var information: RelayInformation
  /// The validated push descriptor.
  public var push: PushDescriptor

  /// Reads and validates a document's JSON bytes.
  ///
  /// - Parameters:
  ///   - protocols: the generations the caller accepts (both by default).
  ///   - requiredAppProfile: the app profile that must be listed with its transport; it applies
  ///     to `nip-pl` only and is ignored for a `buzz-push-v1` relay, which has no app profiles.
  /// - Throws: `document`/`wrong_type` for bytes that are not a JSON object, `duplicate` at the
  ///   path of a repeated member name, else the first failed check of the push descriptor.
  public init(
    bytes: some Sequence<UInt8>, protocols: Set<PushProtocol> = Set(PushProtocol.allCases),
    requiredAppProfile: PushAppProfile? = nil
  ) throws(PushDescriptorError) {
    try self.init(
      object: try DocumentReader.rootObject(bytes), protocols: protocols,
      requiredAppProfile: requiredAppProfile)
  }

  /// Validates a document's root object that has already been read.
  package init(
    object: JSONObject, protocols: Set<PushProtocol> = Set(PushProtocol.allCases),
    requiredAppProfile: PushAppProfile? = nil
  ) throws(PushDescriptorError) {
    push = try PushDescriptor(
      strictDocument: object, protocols: protocols, requiredAppProfile: requiredAppProfile)
    information = RelayInformation(lenient: object)
  }

  /// Builds the document a relay serves: `information`'s members with `supported_extensions`
  /// listing the descriptor's generation and `push` set to the descriptor.
  ///
  /// Existing string entries of `supported_extensions` are kept, except the other generation's
  /// name (a document advertising both is invalid); anything else there is replaced.
  public init(information: RelayInformation, push: PushDescriptor) {
    let extensionName = push.pushProtocol.rawValue
    var object = information.object
    var extensions = object["supported_extensions"]?.arrayValue?.compactMap(\.stringValue) ?? []
    extensions.removeAll { $0.isEmpty || ($0 != extensionName && PushProtocol(rawValue: $0) != nil) }
    if !extensions.contains(extensionName) { extensions.append(extensionName) }
    object["supported_extensions"] = .array(extensions.map(JSONValue.string))
    object["push"] = push.jsonValue
    self.information = RelayInformation(lenient: object)
    self.push = push
  }

  /// The names of top-level members that are neither known NIP-11 members nor the push members.
  public var ignoredTopLevelKeys: [String] { information.ignoredTopLevelKeys }

  /// The whole document as a JSON value, members in their stored order.
  package var jsonValue: JSONValue { .object(information.object) }

  /// The compact JSON of the whole document.
  public func jsonBytes() -> [UInt8] { JSONWriter.bytes(jsonValue) }
}
