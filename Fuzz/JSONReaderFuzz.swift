// libFuzzer harness for the strict JSON reader (module NostrJSON).
//
// Property: the reader never crashes or hangs on any bytes; an error's offset lies inside the
// input; whatever it accepts, `JSONWriter` writes back to bytes that the reader accepts again,
// giving an equal value, and writing that value again gives the same bytes (the writer is a
// fixed point after one round).
import NostrJSON

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
