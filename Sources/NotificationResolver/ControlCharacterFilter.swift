/// Removes characters that must never reach a notification: C0 controls (other than whitespace,
/// which becomes a space), DEL, and the bidirectional formatting controls that could make a
/// message display differently from what was sent.
enum ControlCharacterFilter {
  /// Whether `scalar` is a bidirectional formatting control (marks, embeddings, overrides, isolates).
  static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }

  /// `text` without controls; C0 whitespace (tab, line feed, …) is kept as a plain space.
  static func clean(_ text: Substring) -> String {
    var scalars = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x09...0x0D, 0x1C...0x1F:
        scalars.append(" ")
      case 0x00...0x1F, 0x7F:
        continue
      default:
        if isBidiControl(scalar) { continue }
        scalars.append(scalar)
      }
    }
    return String(scalars)
  }
}
