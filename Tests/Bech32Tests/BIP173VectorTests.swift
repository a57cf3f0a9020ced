import Bech32
import Testing

/// One entry of `bech32-valid.json` or `bech32m-valid.json`.
struct ValidBech32Vector: Decodable, Sendable, CustomTestStringConvertible {
  var string: String
  var hrp: String
  var words: [UInt8]
  var file = ""

  enum CodingKeys: String, CodingKey {
    case string, hrp
    case words = "data_5bit"
  }

  var testDescription: String { "\(file): \(string)" }

  static func load(_ file: String) throws -> [ValidBech32Vector] {
    try VectorFiles.load(file, as: [ValidBech32Vector].self).map {
      var vector = $0
      vector.file = file
      return vector
    }
  }
}

/// One entry of `bech32-invalid.json` or `bech32m-invalid.json`.
struct InvalidBech32Vector: Decodable, Sendable, CustomTestStringConvertible {
  var string: String
  var reason: String
  var file = ""

  enum CodingKeys: String, CodingKey { case string, reason }

  var testDescription: String { "\(file): \(reason): \(string.debugDescription)" }

  /// The code the decoder assigns to the BIP's reason.
  var expectedCode: Bech32Error.Code? {
    switch reason.lowercased() {
    case "hrp character out of range", "no separator character", "empty hrp", "invalid data character",
      "invalid character in checksum":
      .invalidCharacter
    case "overall max length exceeded", "too short checksum": .invalidLength
    case "checksum calculated with uppercase form of hrp": .invalidChecksum
    default: nil
    }
  }

  static func load(_ file: String) throws -> [InvalidBech32Vector] {
    try VectorFiles.load(file, as: [InvalidBech32Vector].self).map {
      var vector = $0
      vector.file = file
      return vector
    }
  }
}

@Suite struct BIP173VectorTests {
  @Test func findsEveryVectorFile() throws {
    #expect(try ValidBech32Vector.load("bech32-valid.json").count == 7)
    #expect(try InvalidBech32Vector.load("bech32-invalid.json").count == 12)
    #expect(try ValidBech32Vector.load("bech32m-valid.json").count == 7)
    #expect(try InvalidBech32Vector.load("bech32m-invalid.json").count == 14)
  }

  @Test(arguments: try ValidBech32Vector.load("bech32-valid.json"))
  func decodesValidBech32(_ vector: ValidBech32Vector) throws {
    let decoded = try Bech32.decode(vector.string, limit: .bip173)
    #expect(decoded.hrp == vector.hrp)
    #expect(decoded.words == vector.words)
  }

  @Test(arguments: try ValidBech32Vector.load("bech32-valid.json"))
  func reencodesValidBech32InLowerCase(_ vector: ValidBech32Vector) throws {
    let encoded = try Bech32.encode(hrp: vector.hrp, words: vector.words, limit: .bip173)
    #expect(encoded == vector.string.lowercased())
  }

  @Test(arguments: try InvalidBech32Vector.load("bech32-invalid.json"))
  func rejectsInvalidBech32WithItsCode(_ vector: InvalidBech32Vector) throws {
    let expected = try #require(vector.expectedCode, "no code mapped for reason '\(vector.reason)'")
    let error = try #require(throws: Bech32Error.self) { try Bech32.decode(vector.string, limit: .bip173) }
    #expect(error.code == expected)
  }

  @Test(arguments: try ValidBech32Vector.load("bech32m-valid.json"))
  func rejectsBech32mChecksums(_ vector: ValidBech32Vector) throws {
    let error = try #require(throws: Bech32Error.self) { try Bech32.decode(vector.string, limit: .bip173) }
    #expect(error.code == .invalidChecksum)
  }

  @Test(arguments: try InvalidBech32Vector.load("bech32m-invalid.json"))
  func rejectsInvalidBech32mWithItsCode(_ vector: InvalidBech32Vector) throws {
    let expected = try #require(vector.expectedCode, "no code mapped for reason '\(vector.reason)'")
    let error = try #require(throws: Bech32Error.self) { try Bech32.decode(vector.string, limit: .bip173) }
    #expect(error.code == expected)
  }
}
