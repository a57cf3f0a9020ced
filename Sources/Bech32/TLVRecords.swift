import NostrPushCore

/// The type-length-value records inside `nprofile`, `nevent` and `naddr` payloads.
///
/// Each record is a type byte, a length byte and that many value bytes, so a value holds at
/// most `maxValueLength` bytes.
struct TLVRecords {
  /// The largest value a one-byte length can describe.
  static let maxValueLength = 255

  /// The record types NIP-19 defines.
  enum Kind: UInt8 {
    /// The entity's main field: a pubkey or event id, or an naddr identifier.
    case special = 0
    /// A relay URL, UTF-8.
    case relay = 1
    /// An author pubkey, 32 bytes.
    case author = 2
    /// An event kind, 4 bytes big-endian.
    case kind = 3
  }

  /// One record: its type and the range of its value in the payload.
  struct Record {
    /// The type byte.
    var type: UInt8
    /// The value bytes.
    var value: ArraySlice<UInt8>
  }

  /// The records in payload order.
  private(set) var records: [Record] = []

  /// Splits `payload` into records; a record running past the end is `invalid_tlv`.
  init(parsing payload: [UInt8]) throws(Bech32Error) {
    var index = 0
    while index < payload.count {
      guard index + 2 <= payload.count else {
        throw Bech32Error(
          code: .invalidTLV, message: "a TLV header at byte \(index) runs past the end", detail: index)
      }
      let type = payload[index]
      let length = Int(payload[index + 1])
      let start = index + 2
      guard start + length <= payload.count else {
        throw Bech32Error(
          code: .invalidTLV,
          message:
            "the TLV record of type \(type) at byte \(index) claims \(length) bytes; \(payload.count - start) remain",
          detail: index)
      }
      records.append(Record(type: type, value: payload[start..<(start + length)]))
      index = start + length
    }
  }

  /// The first record of `kind`, checked to be `length` bytes long when a length is given.
  ///
  /// Every record of that kind is checked, not only the first, so a malformed duplicate is not
  /// silently ignored.
  func first(_ kind: Kind, length: Int?, field: String) throws(Bech32Error) -> ArraySlice<UInt8>? {
    var found: ArraySlice<UInt8>?
    for record in records where record.type == kind.rawValue {
      if let length, record.value.count != length {
        throw Bech32Error(
          code: .invalidTLV, field: field,
          message: "\(field) is \(record.value.count) bytes; \(length) are required")
      }
      if found == nil { found = record.value }
    }
    return found
  }

  /// Every record of `kind` decoded as UTF-8 text.
  func texts(_ kind: Kind, field: String) throws(Bech32Error) -> [String] {
    var texts: [String] = []
    for record in records where record.type == kind.rawValue {
      texts.append(try Self.text(record.value, field: field))
    }
    return texts
  }

  /// `value` as UTF-8 text; invalid UTF-8 is `invalid_tlv`.
  static func text(_ value: ArraySlice<UInt8>, field: String) throws(Bech32Error) -> String {
    guard let text = UTF8Text.decode(value) else {
      throw Bech32Error(code: .invalidTLV, field: field, message: "\(field) is not valid UTF-8")
    }
    return text
  }
}

/// Builds a TLV payload record by record.
struct TLVWriter {
  /// The payload so far.
  private(set) var bytes: [UInt8] = []

  /// Appends one record; a value over 255 bytes is `invalid_tlv` naming `field`.
  mutating func append(_ kind: TLVRecords.Kind, _ value: some Collection<UInt8>, field: String)
    throws(Bech32Error)
  {
    guard value.count <= TLVRecords.maxValueLength else {
      throw Bech32Error(
        code: .invalidTLV, field: field,
        message: "\(field) is \(value.count) bytes; a TLV value holds at most \(TLVRecords.maxValueLength)")
    }
    bytes.append(kind.rawValue)
    bytes.append(UInt8(value.count))
    bytes.append(contentsOf: value)
  }
}
