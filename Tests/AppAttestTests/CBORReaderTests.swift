import AppAttest
import NostrPushTestSupport
import NostrPushTesting
import Testing

/// The bounded CBOR reader: what it decodes, and a typed error for each malformed input.
@Suite struct CBORReaderTests {
  func code(_ bytes: [UInt8]) -> ErrorCode<AppAttestErrorDomain>? {
    do {
      _ = try CBORReader.decode(bytes)
      return nil
    } catch { return error.code }
  }

  @Test func decodesEachSupportedItem() throws {
    let bytes = TestCBOR.map([
      ("u", TestCBOR.header(0, 500)), ("n", TestCBOR.header(1, 9)), ("b", TestCBOR.bytes([1, 2, 3])),
      ("t", TestCBOR.text("é")), ("a", TestCBOR.array([[0xF4], [0xF5], [0xF6]])),
      ("m", TestCBOR.map([("big", TestCBOR.header(0, UInt64.max))])),
    ])
    let value = try CBORReader.decode(bytes)
    #expect(value["u"] == .unsigned(500))
    #expect(value["n"] == .negative(9))
    #expect(value["b"]?.byteString == [1, 2, 3])
    #expect(value["t"]?.textString == "é")
    #expect(value["a"] == .array([.bool(false), .bool(true), .null]))
    #expect(value["m"]?["big"] == .unsigned(UInt64.max))
    #expect(value["missing"] == nil)
  }

  @Test func refusesTruncatedInput() {
    #expect(code([]) == .cborTruncated)
    #expect(code([0x19, 0x01]) == .cborTruncated)  // a 2-byte argument with one byte
    #expect(code(TestCBOR.header(2, 10) + [1, 2]) == .cborTruncated)
    #expect(code(TestCBOR.header(4, 3) + [0x01]) == .cborTruncated)
    #expect(code(TestCBOR.header(5, 1) + TestCBOR.text("k")) == .cborTruncated)
  }

  @Test func refusesTrailingBytes() {
    #expect(code([0x01, 0x02]) == .cborTrailingBytes)
  }

  @Test func refusesOversizedInputAndLengths() {
    #expect(code(TestCBOR.bytes([UInt8](repeating: 0, count: CBORReader.maxSize))) == .cborTooLarge)
    #expect(code(TestCBOR.bytes([UInt8](repeating: 0, count: CBORReader.maxSize - 4))) == nil)
    // Announced lengths over the bound fail before any allocation.
    #expect(code(TestCBOR.header(2, 1 << 40)) == .cborTooLarge)
    #expect(code(TestCBOR.header(3, 0x1_0001)) == .cborTooLarge)
    #expect(code(TestCBOR.header(4, UInt64.max)) == .cborTooLarge)
    // An array count within the bound but beyond the bytes left.
    #expect(code(TestCBOR.header(4, 60_000)) == .cborTruncated)
  }

  @Test func refusesNestingDeeperThanEight() {
    let eight = [UInt8](repeating: 0x81, count: 7) + [0x80]
    #expect(code(eight) == nil)
    #expect(code([0x81] + eight) == .cborTooDeep)
  }

  @Test func refusesIndefiniteLengths() {
    #expect(code([0x5F, 0x41, 0x00, 0xFF]) == .cborIndefiniteLength)
    #expect(code([0x9F, 0xFF]) == .cborIndefiniteLength)
    #expect(code([0xBF, 0xFF]) == .cborIndefiniteLength)
    #expect(code([0x1C]) == .cborIndefiniteLength)
    #expect(code([0xFF]) == .cborIndefiniteLength)
  }

  @Test func refusesTagsFloatsAndOtherSimpleValues() {
    #expect(code([0xC0, 0x60]) == .cborUnsupportedType)
    #expect(code([0xFB] + [UInt8](repeating: 0, count: 8)) == .cborUnsupportedType)
    #expect(code([0xF7]) == .cborUnsupportedType)
  }

  @Test func refusesNonTextAndRepeatedMapKeys() {
    #expect(code(TestCBOR.header(5, 1) + [0x01, 0x02]) == .cborInvalidMapKey)
    #expect(code(TestCBOR.map([("k", [0x01]), ("k", [0x02])])) == .cborInvalidMapKey)
  }

  @Test func refusesTextThatIsNotUTF8() {
    #expect(code(TestCBOR.header(3, 2) + [0xC3, 0x28]) == .cborInvalidUTF8)
  }
}
