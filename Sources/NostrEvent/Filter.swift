import NostrJSON

/// A NIP-01 subscription filter: which events a query asks for.
///
/// Relays answer with events that match; the resolver uses `matches` to check that what a relay
/// returned is what was asked for, and the fixture relay uses it to answer queries.
public struct Filter: Sendable, Hashable {
  /// The most values one list (`ids`, `authors`, `kinds`, one tag filter) may hold.
  package static let maxValues = 10_000

  /// Event ids (64 lowercase hex); nil means any.
  public var ids: [String]?
  /// Author pubkeys (64 lowercase hex); nil means any.
  public var authors: [String]?
  /// Kinds; nil means any.
  public var kinds: [Int]?
  /// Tag filters: the key is the single tag letter without `#`, the values the accepted tag values.
  public var tags: [String: [String]]
  /// The earliest `created_at` accepted (inclusive).
  public var since: Int64?
  /// The latest `created_at` accepted (inclusive).
  public var until: Int64?
  /// The most events the relay should return for the initial query.
  public var limit: Int?

  /// Creates a filter; every condition left nil (or empty tags) accepts anything.
  public init(
    ids: [String]? = nil, authors: [String]? = nil, kinds: [Int]? = nil, tags: [String: [String]] = [:],
    since: Int64? = nil, until: Int64? = nil, limit: Int? = nil
  ) {
    self.ids = ids
    self.authors = authors
    self.kinds = kinds
    self.tags = tags
    self.since = since
    self.until = until
    self.limit = limit
  }

  /// The most filters ``list(json:)`` accepts.
  package static let maxListFilters = 100

  /// Reads a JSON array of 1 to ``maxListFilters`` NIP-01 filters (a lease's subscriptions, a
  /// `--filters` file, a `REQ`'s filters).
  ///
  /// - Throws: `malformed_json` (field nil) when the text is not a JSON array of the right length;
  ///   otherwise the first filter's error, its field prefixed with `[index].`.
  package static func list(json bytes: [UInt8]) throws(EventError) -> [Filter] {
    guard case .array(let elements) = try? JSONReader().read(bytes),
      (1...maxListFilters).contains(elements.count)
    else {
      throw EventError(
        code: .malformedJSON, message: "not a JSON array of 1 to \(maxListFilters) filters")
    }
    var filters: [Filter] = []
    filters.reserveCapacity(elements.count)
    for (index, element) in elements.enumerated() {
      do {
        filters.append(try Filter(jsonValue: element))
      } catch {
        throw EventError(
          code: error.code, field: "[\(index)]" + (error.field.map { "." + $0 } ?? ""),
          message: "filter \(index): \(error.message)")
      }
    }
    return filters
  }

  /// Reads a filter from its JSON object; members other than the NIP-01 ones are ignored.
  public init(jsonValue: JSONValue) throws(EventError) {
    guard case .object(let object) = jsonValue else {
      throw EventError(
        code: .malformedJSON, message: "a filter must be a JSON object, not \(jsonValue.typeName)")
    }
    self.init()
    for member in object.members {
      switch member.key {
      case "ids": ids = try Filter.hexList(member.value, field: "ids")
      case "authors": authors = try Filter.hexList(member.value, field: "authors")
      case "kinds":
        let values = try Filter.list(member.value, field: "kinds")
        kinds = try values.enumerated().map { (index, value) throws(EventError) in
          Int(try Filter.integer(value, field: "kinds[\(index)]", range: 0...Int64(Event.maxKind)))
        }
      case "since": since = try Filter.integer(member.value, field: "since", range: 0...Event.maxCreatedAt)
      case "until": until = try Filter.integer(member.value, field: "until", range: 0...Event.maxCreatedAt)
      case "limit": limit = Int(try Filter.integer(member.value, field: "limit", range: 0...Int64(Int32.max)))
      case let key where key.hasPrefix("#"):
        let letter = String(key.dropFirst())
        guard letter.unicodeScalars.count == 1, let scalar = letter.unicodeScalars.first,
          ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
        else {
          throw EventError(code: .invalidValue, field: key, message: "\(key): a tag filter names one letter")
        }
        let values = try Filter.list(member.value, field: key)
        tags[letter] = try values.enumerated().map { (index, value) throws(EventError) in
          guard case .string(let text) = value else {
            throw EventError(
              code: .wrongType, field: "\(key)[\(index)]", message: "\(key)[\(index)]: expected a string")
          }
          return text
        }
      default: continue
      }
    }
  }

  /// The filter as a JSON object (tag filters in letter order).
  package var jsonValue: JSONValue {
    var object = JSONObject()
    if let ids { object["ids"] = .array(ids.map { .string($0) }) }
    if let authors { object["authors"] = .array(authors.map { .string($0) }) }
    if let kinds { object["kinds"] = .array(kinds.map { .integer(Int64($0)) }) }
    for letter in tags.keys.sorted() {
      object["#" + letter] = .array(tags[letter]!.map { .string($0) })
    }
    if let since { object["since"] = .integer(since) }
    if let until { object["until"] = .integer(until) }
    if let limit { object["limit"] = .integer(Int64(limit)) }
    return .object(object)
  }

  /// Whether `event` satisfies every condition of this filter (`limit` is not a condition).
  package func matches(_ event: Event) -> Bool {
    if let ids, !ids.contains(event.id) { return false }
    if let authors, !authors.contains(event.pubkey) { return false }
    if let kinds, !kinds.contains(event.kind) { return false }
    if let since, event.createdAt < since { return false }
    if let until, event.createdAt > until { return false }
    for (letter, values) in tags {
      let found = event.tags.contains { tag in
        tag.count >= 2 && tag[0] == letter && values.contains(tag[1])
      }
      if !found { return false }
    }
    return true
  }

  // MARK: Member readers

  private static func list(_ value: JSONValue, field: String) throws(EventError) -> [JSONValue] {
    guard case .array(let values) = value else {
      throw EventError(
        code: .wrongType, field: field, message: "\(field): expected an array, got \(value.typeName)")
    }
    guard values.count <= maxValues else {
      throw EventError(code: .tooMany, field: field, message: "\(field): more than \(maxValues) values")
    }
    return values
  }

  private static func hexList(_ value: JSONValue, field: String) throws(EventError) -> [String] {
    try list(value, field: field).enumerated().map { (index, element) throws(EventError) in
      guard case .string(let text) = element else {
        throw EventError(
          code: .wrongType, field: "\(field)[\(index)]", message: "\(field)[\(index)]: expected a string")
      }
      guard Hex.isLowercaseHex(text, length: 64) else {
        throw EventError(
          code: .invalidValue, field: "\(field)[\(index)]",
          message: "\(field)[\(index)]: expected 64 lowercase hex characters")
      }
      return text
    }
  }

  private static func integer(
    _ value: JSONValue, field: String, range: ClosedRange<Int64>
  ) throws(EventError) -> Int64 {
    guard case .integer(let number) = value else {
      throw EventError(
        code: .wrongType, field: field, message: "\(field): expected an integer, got \(value.typeName)")
    }
    guard range.contains(number) else {
      throw EventError(
        code: .invalidValue, field: field,
        message: "\(field): \(number) is outside \(range.lowerBound)…\(range.upperBound)")
    }
    return number
  }
}

extension Array where Element == Filter {
  /// Whether `event` matches at least one of the filters (NIP-01: filters are alternatives).
  package func matches(_ event: Event) -> Bool {
    contains { $0.matches(event) }
  }
}
