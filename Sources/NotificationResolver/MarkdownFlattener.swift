/// Turns the chat-markdown of a message into plain words for a notification body.
///
/// Fenced code becomes `[code]`, inline code keeps its text, `[label](url)` and `![label](url)`
/// become their label, bare `http(s)://` URLs become `[link]`, and `nostr:npub1…` /
/// `nostr:nprofile1…` mentions become `@` and the renderer's text (each in the words of
/// ``NotificationStrings``). Unclosed constructs are text,
/// except an unclosed fence, which hides everything after it (as a markdown viewer would).
struct MarkdownFlattener {
  /// The longest link label or link target recognised as a markdown link, in characters.
  static let maxLinkPartLength = 2048

  let renderMention: BodyPreview.MentionRenderer
  let strings: NotificationStrings

  func flatten(_ text: String) -> String {
    let characters = Array(text)
    var output = ""
    output.reserveCapacity(characters.count)
    var index = 0
    while index < characters.count {
      let character = characters[index]
      if character == "`" {
        if Self.hasPrefix(characters, at: index, "```") {
          output += strings.code
          guard let close = Self.find(characters, "```", from: index + 3) else { break }
          index = close + 3
          continue
        }
        if let close = characters[(index + 1)...].firstIndex(of: "`") {
          output += String(characters[(index + 1)..<close])
          index = close + 1
          continue
        }
      } else if character == "["
        || (character == "!" && index + 1 < characters.count && characters[index + 1] == "[")
      {
        let open = character == "!" ? index + 1 : index
        if let (label, end) = Self.link(characters, openBracket: open) {
          output += label
          index = end
          continue
        }
      } else if character == "h" || character == "H", Self.startsURL(characters, at: index) {
        index = Self.urlEnd(characters, from: index)
        output += strings.link
        continue
      } else if character == "n", let (mention, end) = mention(characters, at: index) {
        output += strings.mention(mention)
        index = end
        continue
      }
      output.append(character)
      index += 1
    }
    return output
  }

  private static func hasPrefix(_ characters: [Character], at index: Int, _ prefix: String) -> Bool {
    var position = index
    for expected in prefix {
      guard position < characters.count, characters[position] == expected else { return false }
      position += 1
    }
    return true
  }

  private static func hasPrefixIgnoringCase(_ characters: [Character], at index: Int, _ prefix: String)
    -> Bool
  {
    var position = index
    for expected in prefix {
      guard position < characters.count, characters[position].lowercased() == String(expected) else {
        return false
      }
      position += 1
    }
    return true
  }

  private static func find(_ characters: [Character], _ needle: String, from start: Int) -> Int? {
    var index = start
    while index < characters.count {
      if hasPrefix(characters, at: index, needle) { return index }
      index += 1
    }
    return nil
  }

  /// `[label](target)` starting at `openBracket`: the label and the index after `)`.
  private static func link(_ characters: [Character], openBracket: Int) -> (String, Int)? {
    var index = openBracket + 1
    var label = ""
    while index < characters.count, characters[index] != "]" {
      let character = characters[index]
      guard character != "[", character != "\n", label.count < maxLinkPartLength else { return nil }
      label.append(character)
      index += 1
    }
    guard index + 1 < characters.count, characters[index] == "]", characters[index + 1] == "(" else {
      return nil
    }
    index += 2
    var targetLength = 0
    while index < characters.count, characters[index] != ")" {
      guard !characters[index].isWhitespace, targetLength < maxLinkPartLength else { return nil }
      targetLength += 1
      index += 1
    }
    guard index < characters.count, targetLength > 0 else { return nil }
    return (label, index + 1)
  }

  private static func startsURL(_ characters: [Character], at index: Int) -> Bool {
    if index > 0, characters[index - 1].isLetter || characters[index - 1].isNumber { return false }
    let rest: Int
    if hasPrefixIgnoringCase(characters, at: index, "https://") {
      rest = index + 8
    } else if hasPrefixIgnoringCase(characters, at: index, "http://") {
      rest = index + 7
    } else {
      return false
    }
    return rest < characters.count && !characters[rest].isWhitespace
  }

  /// The index after a bare URL: it runs to whitespace or an angle bracket or quote, without
  /// trailing sentence punctuation or an unmatched closing parenthesis.
  private static func urlEnd(_ characters: [Character], from start: Int) -> Int {
    var end = start
    while end < characters.count {
      let character = characters[end]
      if character.isWhitespace || character == "<" || character == ">" || character == "\"" { break }
      end += 1
    }
    var opened = 0
    var closed = 0
    for character in characters[start..<end] {
      if character == "(" { opened += 1 } else if character == ")" { closed += 1 }
    }
    while end > start {
      let last = characters[end - 1]
      if ".,;:!?'".contains(last) {
        end -= 1
      } else if last == ")" && closed > opened {
        closed -= 1
        end -= 1
      } else {
        break
      }
    }
    return end
  }

  /// `nostr:npub1…` or `nostr:nprofile1…` at `index`: the rendered name and the index after it.
  private func mention(_ characters: [Character], at index: Int) -> (String, Int)? {
    guard Self.hasPrefixIgnoringCase(characters, at: index, "nostr:") else { return nil }
    let entityStart = index + 6
    guard
      Self.hasPrefixIgnoringCase(characters, at: entityStart, "npub1")
        || Self.hasPrefixIgnoringCase(characters, at: entityStart, "nprofile1")
    else { return nil }
    var end = entityStart
    while end < characters.count, characters[end].isASCII,
      characters[end].isLetter || characters[end].isNumber
    {
      end += 1
    }
    let entity = String(characters[entityStart..<end])
    guard let rendered = renderMention(entity) else { return nil }
    return (rendered, end)
  }
}
