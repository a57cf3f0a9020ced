/// A translatable format with up to two arguments, in the subset of printf that
/// `Localizable.strings` translators write: `%@`, `%d`, `%i`, `%ld`, `%lld` and their positional
/// forms (`%1$@`, `%2$lld`, …), and `%%` for a percent sign.
///
/// Every form shows its argument as text (a count in plain digits), so `%@` and `%d` are
/// interchangeable; a format may leave an argument out. In a format of one argument every
/// placeholder stands for it; in a format of two, the unnumbered placeholders stand for the first,
/// then the second, and a translator reorders them with `%2$@ … %1$@`. Any other `%` sequence
/// (`%s`, `%3$d`, `%2$d` in a format of one argument, a lone `%`) makes the format invalid, so a
/// translation cannot name an argument that does not exist.
struct StringsFormat: Sendable, Hashable {
  /// The format as written.
  let template: String
  /// The template cut at its placeholders: literal runs, and the argument (1 or 2) of each
  /// placeholder.
  private let pieces: [Piece]

  private enum Piece: Sendable, Hashable {
    case literal(String)
    case argument(Int)
  }

  /// The format `template` of `arity` arguments (1 or 2), or nil when it holds a `%` sequence
  /// outside the accepted subset.
  init?(_ template: String, arity: Int = 1) {
    var pieces: [Piece] = []
    var literal = ""
    var next = 1
    var index = template.startIndex
    while index < template.endIndex {
      let character = template[index]
      index = template.index(after: index)
      guard character == "%" else {
        literal.append(character)
        continue
      }
      guard let (end, position) = Self.placeholder(in: template, from: index) else { return nil }
      index = end
      guard let position else {
        literal.append("%")
        continue
      }
      let argument: Int
      if position > 0 {
        argument = position
      } else {
        argument = arity == 1 ? 1 : next
        next += 1
      }
      guard argument <= max(1, arity) else { return nil }
      pieces.append(.literal(literal))
      pieces.append(.argument(argument))
      literal = ""
    }
    pieces.append(.literal(literal))
    self.template = template
    self.pieces = pieces
  }

  /// Whether the format shows an argument anywhere.
  var hasPlaceholder: Bool { pieces.contains { if case .argument = $0 { true } else { false } } }

  /// The format with `argument` in place of every placeholder.
  func callAsFunction(_ argument: String) -> String {
    callAsFunction(argument, "")
  }

  /// The format with `first` and `second` in place of their placeholders.
  func callAsFunction(_ first: String, _ second: String) -> String {
    pieces.map { piece in
      switch piece {
      case .literal(let text): text
      case .argument(let position): position == 1 ? first : second
      }
    }.joined()
  }

  /// Where the sequence after a `%` at `start` ends, and what it is: nil for `%%`, 0 for an
  /// unnumbered placeholder, 1 or 2 for `%1$…` or `%2$…`; the sequence is an optional `1$` or
  /// `2$`, an optional `l` or `ll`, and `@`, `d` or `i`. Nil when it is anything else.
  private static func placeholder(in template: String, from start: String.Index) -> (String.Index, Int?)? {
    var rest = template[start...]
    if rest.first == "%" { return (rest.index(after: rest.startIndex), nil) }
    var position = 0
    if rest.hasPrefix("1$") {
      position = 1
      rest = rest.dropFirst(2)
    } else if rest.hasPrefix("2$") {
      position = 2
      rest = rest.dropFirst(2)
    }
    if rest.hasPrefix("ll") {
      rest = rest.dropFirst(2)
    } else if rest.hasPrefix("l") {
      rest = rest.dropFirst()
    }
    guard let conversion = rest.first, conversion == "@" || conversion == "d" || conversion == "i" else {
      return nil
    }
    return (rest.index(after: rest.startIndex), position)
  }
}
