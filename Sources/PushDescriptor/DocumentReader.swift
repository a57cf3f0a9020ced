import NostrJSON

/// Reads the bytes of a relay information document into its root object.
///
/// Every reader failure becomes a `PushDescriptorError`: a duplicate member name is `duplicate`
/// at the reader's path, anything else that is not a JSON object is `document`/`wrong_type`.
enum DocumentReader {
  /// The largest document read from bytes: the suite's 16 MiB cap on a single JSON document.
  static let maxDocumentBytes = JSONReader.defaultMaxBytes

  static func rootObject(_ bytes: some Sequence<UInt8>) throws(PushDescriptorError) -> JSONObject {
    let value: JSONValue
    do {
      value = try JSONReader(maxBytes: maxDocumentBytes).read(bytes)
    } catch {
      throw PushDescriptorError(json: error)
    }
    guard case .object(let object) = value else {
      throw PushDescriptorError(
        code: .wrongType, field: PushDescriptorError.documentField,
        message: "the document is a JSON \(value.typeName), not an object")
    }
    return object
  }
}

extension PushDescriptorError {
  /// The error for a document the strict reader refused.
  init(json error: JSONError) {
    if error.code == .duplicateKey, let path = error.field, !path.hasPrefix("[") {
      self.init(code: .duplicate, field: path, message: error.message)
    } else {
      self.init(
        code: .wrongType, field: PushDescriptorError.documentField,
        message: "the document is not a JSON object: \(error.description)")
    }
  }
}
