import Foundation

/// The sanitising rule for names shown in a notification (profile display names, channel names).
///
/// NFC; whitespace runs collapsed to one space and trimmed; C0 controls, DEL and bidi controls
/// removed; then cut on a grapheme boundary to at most `maxCharacters` characters and
/// `maxUTF8Bytes` bytes. A name that is empty afterwards counts as absent.
package enum DisplayName {
  /// The most grapheme clusters a name keeps.
  package static let maxCharacters = 128
  /// The most UTF-8 bytes a name keeps.
  package static let maxUTF8Bytes = 512
  /// The most UTF-8 bytes read from a raw name before sanitising (longer input is cut first, so a
  /// hostile profile cannot make the sanitiser work on megabytes).
  static let maxInputBytes = 16 * 1024

  /// The sanitised name, or nil when nothing visible is left.
  package static func sanitize(_ raw: String) -> String? {
    var scalars = String.UnicodeScalarView()
    var pendingSpace = false
    var inputBytes = 0
    for scalar in raw.unicodeScalars {
      inputBytes += UTF8.width(scalar)
      if inputBytes > maxInputBytes { break }
      if scalar.properties.isWhitespace {
        pendingSpace = !scalars.isEmpty
        continue
      }
      if isControl(scalar) { continue }
      if pendingSpace {
        scalars.append(" ")
        pendingSpace = false
      }
      scalars.append(scalar)
    }
    let normalized = String(scalars).precomposedStringWithCanonicalMapping
    var result = ""
    var characters = 0
    var bytes = 0
    for character in normalized {
      let width = character.utf8.count
      guard characters < maxCharacters, bytes + width <= maxUTF8Bytes else { break }
      result.append(character)
      characters += 1
      bytes += width
    }
    while result.last?.isWhitespace == true { result.removeLast() }
    return result.isEmpty ? nil : result
  }

  /// The display name of a kind 0 content object: `display_name`, else (absent or blank) `name`.
  static func fromProfile(displayName: String?, name: String?) -> String? {
    displayName.flatMap(sanitize) ?? name.flatMap(sanitize)
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F: true
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }
}
