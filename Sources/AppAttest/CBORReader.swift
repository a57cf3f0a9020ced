import NostrPushCore

/// A small, bounded reader of the CBOR (RFC 8949) that App Attest sends: definite lengths only,
/// nesting at most `maxDepth`, the input and every string, array and map at most `maxSize`, maps
/// with unique text keys. Every malformed input is an `AppAttestError` with a `cbor_…` code; no
/// input makes it allocate more than the input's size or recurse deeper than `maxDepth`.
///
/// Tags, floats and simple values other than false, true and null are refused
/// (`cbor_unsupported_type`): App Attest's attestation and assertion objects use none.
public struct CBORReader: Sendable {
  /// The deepest nesting of arrays and maps accepted (the top level is depth 1).
  public static let maxDepth = 8
  /// The largest input, and the largest string, array or map length, accepted: 64 KiB.
  public static let maxSize = 64 * 1024

  private let bytes: [UInt8]
  private var position = 0

  private init(bytes: [UInt8]) { self.bytes = bytes }

  /// The one CBOR item that `bytes` holds, entirely: bytes after it are refused.
  public static func decode(_ bytes: [UInt8]) throws(AppAttestError) -> CBORValue {
    guard bytes.count <= maxSize else {
      throw AppAttestError(code: .cborTooLarge, message: "input of \(bytes.count) bytes, over \(maxSize)")
    }
    var reader = CBORReader(bytes: bytes)
    let value = try reader.item(depth: 1)
    guard reader.position == bytes.count else {
      throw AppAttestError(
        code: .cborTrailingBytes, message: "\(bytes.count - reader.position) bytes after the item")
    }
    return value
  }

  private mutating func byte() throws(AppAttestError) -> UInt8 {
    guard position < bytes.count else {
      throw AppAttestError(code: .cborTruncated, message: "input ends at byte \(position)")
    }
    defer { position += 1 }
    return bytes[position]
  }

  /// The argument of a header whose additional information is `info`.
  private mutating func argument(_ info: UInt8) throws(AppAttestError) -> UInt64 {
    switch info {
    case 0..<24: return UInt64(info)
    case 24...27:
      var value: UInt64 = 0
      for _ in 0..<(1 << (info - 24)) { value = value << 8 | UInt64(try byte()) }
      return value
    default:
      throw AppAttestError(
        code: .cborIndefiniteLength, message: "additional information \(info) at byte \(position - 1)")
    }
  }

  /// A length argument, at most `maxSize`.
  private mutating func length(_ info: UInt8) throws(AppAttestError) -> Int {
    let value = try argument(info)
    guard value <= UInt64(Self.maxSize) else {
      throw AppAttestError(
        code: .cborTooLarge, message: "length \(value) at byte \(position), over \(Self.maxSize)")
    }
    return Int(value)
  }

  private mutating func take(_ count: Int) throws(AppAttestError) -> ArraySlice<UInt8> {
    guard count <= bytes.count - position else {
      throw AppAttestError(
        code: .cborTruncated,
        message: "\(count) bytes announced at byte \(position), \(bytes.count - position) left")
    }
    defer { position += count }
    return bytes[position..<position + count]
  }

  private mutating func item(depth: Int) throws(AppAttestError) -> CBORValue {
    let initial = try byte()
    let major = initial >> 5
    let info = initial & 0x1F
    switch major {
    case 0: return .unsigned(try argument(info))
    case 1: return .negative(try argument(info))
    case 2: return .bytes(Array(try take(try length(info))))
    case 3:
      let raw = try take(try length(info))
      guard let text = UTF8Text.decode(raw) else {
        throw AppAttestError(code: .cborInvalidUTF8, message: "text string ending at byte \(position)")
      }
      return .text(text)
    case 4, 5:
      guard depth <= Self.maxDepth else {
        throw AppAttestError(
          code: .cborTooDeep, message: "nesting over \(Self.maxDepth) at byte \(position - 1)")
      }
      let count = try length(info)
      // Every item takes at least one byte: a count beyond what is left cannot be met.
      guard count <= bytes.count - position else {
        throw AppAttestError(
          code: .cborTruncated,
          message: "\(count) items announced at byte \(position), \(bytes.count - position) bytes left")
      }
      if major == 4 {
        var items: [CBORValue] = []
        items.reserveCapacity(count)
        for _ in 0..<count { items.append(try item(depth: depth + 1)) }
        return .array(items)
      }
      var entries: [(key: String, value: CBORValue)] = []
      entries.reserveCapacity(count)
      var keys = Set<String>()
      for _ in 0..<count {
        let keyStart = position
        guard case .text(let key) = try item(depth: depth + 1) else {
          throw AppAttestError(code: .cborInvalidMapKey, message: "map key at byte \(keyStart) is not text")
        }
        guard keys.insert(key).inserted else {
          throw AppAttestError(
            code: .cborInvalidMapKey, field: key, message: "map key repeated at byte \(keyStart)")
        }
        entries.append((key, try item(depth: depth + 1)))
      }
      return .map(entries)
    case 6:
      throw AppAttestError(code: .cborUnsupportedType, message: "tag at byte \(position - 1)")
    default:
      switch info {
      case 20: return .bool(false)
      case 21: return .bool(true)
      case 22: return .null
      case 31:
        throw AppAttestError(code: .cborIndefiniteLength, message: "break at byte \(position - 1)")
      default:
        throw AppAttestError(
          code: .cborUnsupportedType, message: "float or simple value at byte \(position - 1)")
      }
    }
  }
}
