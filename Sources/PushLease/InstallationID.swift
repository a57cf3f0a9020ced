import NostrEvent

/// The `d` of a lease: one installation of the app for one account at one relay origin.
///
/// It is 16 bytes from the system generator written as 32 lowercase hex characters, kept across
/// grant and token rotation and new on reinstall; it is never derived from a token, a grant or a
/// device id, so the public address of a lease says nothing about the device.
public struct InstallationID: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
  /// The number of random bytes in an id.
  package static let byteCount = 16

  /// The 32 lowercase hex characters.
  public let rawValue: String

  /// The id written as `rawValue`; nil unless it is exactly 32 lowercase hex characters.
  public init?(rawValue: String) {
    guard Hex.isLowercaseHex(rawValue, length: 2 * Self.byteCount) else { return nil }
    self.rawValue = rawValue
  }

  /// A fresh id from the system's random generator (once per install, per origin and account).
  public static func generate() -> InstallationID {
    InstallationID(unchecked: Hex.encode(SystemRandom.bytes(byteCount)))
  }

  private init(unchecked rawValue: String) { self.rawValue = rawValue }

  /// Decodes the value, checking it as the validating initialiser does.
  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let id = InstallationID(rawValue: text) else {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(
          codingPath: decoder.codingPath,
          debugDescription: "an installation id is 32 lowercase hex characters"))
    }
    self = id
  }

  /// Encodes the value in the form `init(from:)` reads.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  /// The text form: the value itself.
  public var description: String { rawValue }
}
