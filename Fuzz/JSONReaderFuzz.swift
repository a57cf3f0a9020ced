// libFuzzer harness for the strict JSON reader (module NostrJSON).
//
// Property: the reader never crashes or hangs on any bytes; an error's offset lies inside the
// input; what it accepts is valid UTF-8, has no control byte but whitespace outside strings
// and nests no deeper than the bound (checked by a byte walk independent of the reader's
// word-at-a-time scan); and whatever it accepts, `JSONWriter` writes back to bytes that the
// reader accepts again, giving an equal value, and writing that value again gives the same bytes.
import NostrJSON

/// The deepest bracket nesting outside string literals, or nil when a byte below 0x20 is
/// anything but JSON whitespace outside a string.
func nestingDepthIfControlsAreWhitespace(_ input: UnsafeRawBufferPointer) -> Int? {
  var inString = false
  var escaped = false
  var depth = 0
  var deepest = 0
  for byte in input {
    if inString {
      if byte < 0x20 { return nil }
      if escaped {
        escaped = false
      } else if byte == UInt8(ascii: "\\") {
        escaped = true
      } else if byte == UInt8(ascii: "\"") {
        inString = false
      }
    } else if byte == UInt8(ascii: "\"") {
      inString = true
    } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
      depth += 1
      deepest = max(deepest, depth)
    } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
      depth -= 1
    } else if byte < 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D {
      return nil
    }
  }
  return deepest
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
  let reader = JSONReader()
  let value: JSONValue
  do {
    value = try reader.read(buffer: input)
  } catch {
    guard error.offset >= 0, error.offset <= size else {
      fatalError("JSONError offset \(error.offset) is outside the \(size)-byte input: \(error)")
    }
    return 0
  }
  guard String(validating: input, as: UTF8.self) != nil else {
    fatalError("the reader accepted a document that is not valid UTF-8")
  }
  guard let depth = nestingDepthIfControlsAreWhitespace(input) else {
    fatalError("the reader accepted a raw control byte inside a string or outside whitespace")
  }
  guard depth <= reader.maxDepth else {
    fatalError("the reader accepted nesting \(depth) deep, over its limit of \(reader.maxDepth)")
  }
  let written = JSONWriter.bytes(value)
  let reread: JSONValue
  do {
    reread = try reader.read(written)
  } catch {
    fatalError("the reader refused what the writer wrote (\(error)): \(JSONWriter.string(value))")
  }
  guard reread == value else {
    fatalError("round trip changed the value: \(value) became \(reread)")
  }
  guard JSONWriter.bytes(reread) == written else {
    fatalError("writing the re-read value gave different bytes")
  }
  return 0
}
