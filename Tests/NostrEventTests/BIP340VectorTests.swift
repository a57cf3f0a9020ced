import Foundation
import Testing

@testable import NostrEvent

/// One row of `bip340-vectors.csv`.
struct BIP340Vector: Sendable, CustomTestStringConvertible {
  var index: Int
  var secretKey: String
  var publicKey: String
  var auxRand: String
  var message: String
  var signature: String
  var expected: Bool
  var comment: String

  var testDescription: String { "bip340-vectors.csv #\(index) \(comment)" }

  static let all: [BIP340Vector] = {
    let text = String(decoding: VectorFiles.bytes("bip340-vectors.csv"), as: UTF8.self)
    let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }).dropFirst()
    return lines.compactMap { line in
      let fields = line.split(separator: ",", maxSplits: 7, omittingEmptySubsequences: false).map(String.init)
      guard fields.count >= 7, let index = Int(fields[0]) else { return nil }
      return BIP340Vector(
        index: index, secretKey: fields[1], publicKey: fields[2], auxRand: fields[3], message: fields[4],
        signature: fields[5], expected: fields[6] == "TRUE", comment: fields.count > 7 ? fields[7] : "")
    }
  }()
}

@Suite struct BIP340VectorTests {
  @Test func readsAllNineteenVectors() {
    #expect(BIP340Vector.all.count == 19)
    #expect(BIP340Vector.all.map(\.index) == Array(0...18))
  }

  @Test(arguments: BIP340Vector.all)
  func verifiesAsListed(_ vector: BIP340Vector) throws {
    let signature = try #require(Hex.decode(vector.signature))
    let message = try #require(Hex.decode(vector.message))
    let publicKey = try #require(Hex.decode(vector.publicKey))
    let result = signature.withUnsafeBytes { signature in
      message.withUnsafeBytes { message in
        publicKey.withUnsafeBytes { key in
          Secp256k1.verify(signature: signature, message: message, publicKey: key)
        }
      }
    }
    #expect(result == vector.expected)
  }

  @Test(arguments: BIP340Vector.all.filter { !$0.secretKey.isEmpty })
  func signsToTheListedSignature(_ vector: BIP340Vector) throws {
    let key = try SecretKey(hex: vector.secretKey)
    #expect(key.publicKeyHex == vector.publicKey.lowercased())
    let message = try #require(Hex.decode(vector.message))
    let auxRand = try #require(Hex.decode(vector.auxRand))
    let signature = try #require(key.sign(message: message, auxRand: auxRand))
    #expect(Hex.encode(signature) == vector.signature.lowercased())
  }

  @Test func refusesAZeroSecretKey() {
    #expect(throws: EventError(code: .invalidField, field: "secret_key", message: "")) {
      try SecretKey(bytes: [UInt8](repeating: 0, count: 32))
    }
  }

  @Test func refusesASecretKeyAtTheCurveOrder() {
    let order = "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141"
    #expect(throws: EventError(code: .invalidField, field: "secret_key", message: "")) {
      try SecretKey(hex: order)
    }
  }

  @Test func generatesDistinctKeys() {
    #expect(SecretKey.generate().publicKeyHex != SecretKey.generate().publicKeyHex)
  }
}
