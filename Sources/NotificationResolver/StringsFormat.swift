/// A translatable format with one argument, in the subset of printf that `Localizable.strings`
/// translators write: `%@`, `%d`, `%i`, `%ld`, `%lld` and their positional forms (`%1$@`,
/// `%1$lld`, …) all stand for the one argument, and `%%` is a percent sign.
///
/// Every form shows the argument as text (a count in plain digits), so `%@` and `%d` are
/// interchangeable; a format may leave the argument out. Any other `%` sequence (`%s`, `%2$d`, a
/// lone `%`) makes the format invalid, so a translation cannot name an argument that does not
/// exist.
struct StringsFormat: Sendable, Hashable {
  /// The format as written.
  let template: String
  /// The template cut at its placeholders: literal runs, with nil where the argument goes.
  private let pieces: [String?]

  /// The format `template`, or nil when it holds a `%` sequence outside the accepted subset.
  init?(_ template: String) {
    var pieces: [String?] = []
    var literal = ""
    var index = template.startIndex
    while index < template.endIndex {
      let character = template[index]
      index = template.index(after: index)
      guard character == "%" else {
        literal.append(character)
        continue
      }
      guard let end = Self.placeholderEnd(in: template, from: index) else { return nil }
      if template[index] == "%" {
        literal.append("%")
      } else {
        pieces.append(literal)
        pieces.append(nil)
        literal = ""
      }
      index = end
    }
    pieces.append(literal)
    self.template = template
    self.pieces = pieces
  }

  /// Whether the format shows its argument anywhere.
  var hasPlaceholder: Bool { pieces.contains(nil) }

  /// The format with `argument` in place of every placeholder.
  func callAsFunction(_ argument: String) -> String {
    pieces.map { $0 ?? argument }.joined()
  }

  /// Where the sequence after a `%` at `start` ends: `%`, or an optional `1$`, an optional `l` or
  /// `ll`, and `@`, `d` or `i`; nil when it is anything else.
  private static func placeholderEnd(in template: String, from start: String.Index) -> String.Index? {
    var rest = template[start...]
    if rest.first == "%" { return rest.index(after: rest.startIndex) }
    if rest.hasPrefix("1$") { rest = rest.dropFirst(2) }
    if rest.hasPrefix("ll") {
      rest = rest.dropFirst(2)
    } else if rest.hasPrefix("l") {
      rest = rest.dropFirst()
    }
    guard let conversion = rest.first, conversion == "@" || conversion == "d" || conversion == "i" else {
      return nil
    }
    return rest.index(after: rest.startIndex)
  }
}
