// libFuzzer harness for the notification body preview (module NotificationResolver).
//
// The first input byte picks what the mention renderer returns (no name, a short name, a
// 128-character name of emoji, an empty name, a name with inner spaces: names come from the
// enrichment cache, which already removes controls and caps them at 128 characters); the rest
// is the message content (UTF-8, invalid sequences replaced).
// Property: `BodyPreview.preview(of:)` never crashes or hangs; its output is at most 180
// grapheme clusters, holds no C0 control, DEL or bidi control, starts with no whitespace, ends
// with no space, has no two spaces in a row, and every grapheme cluster holding whitespace is one
// plain space (no joiner or mark left hanging on a collapsed separator: the finding kept in
// Fuzz/Regressions/preview, replayed by NotificationResolverTests/FuzzRegressionTests).
import NotificationResolver

let mentionNames: [String?] = [
  nil, "alice", String(repeating: "👩‍💻", count: 128), "", "Bob  van\tDam",
]

let previews = mentionNames.map { name in BodyPreview(renderMention: { _ in name }) }

func isBidiControl(_ value: UInt32) -> Bool {
  value == 0x061C || value == 0x200E || value == 0x200F || (0x202A...0x202E).contains(value)
    || (0x2066...0x2069).contains(value)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let data, size > 0 else { return 0 }
  let preview = previews[Int(data[0]) % previews.count]
  let content = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
  let body = preview.preview(of: content)
  guard body.count <= BodyPreview.maxCharacters else {
    fatalError("preview of \(body.count) characters: \(body.debugDescription)")
  }
  if let scalar = body.unicodeScalars.first(where: {
    $0.value < 0x20 || $0.value == 0x7F || isBidiControl($0.value)
  }) {
    fatalError("preview holds U+\(String(scalar.value, radix: 16)): \(body.debugDescription)")
  }
  let scalars = Array(body.unicodeScalars)
  guard scalars.first.map({ !$0.properties.isWhitespace }) ?? true, scalars.last != " " else {
    fatalError("preview is not trimmed: \(body.debugDescription)")
  }
  for (first, second) in zip(scalars, scalars.dropFirst()) where first == " " && second == " " {
    fatalError("preview has doubled spaces: \(body.debugDescription)")
  }
  if body.contains(where: { character in
    character != " " && character.unicodeScalars.contains { $0.properties.isWhitespace }
  }) {
    fatalError("preview has a space joined to another scalar: \(body.debugDescription)")
  }
  return 0
}
