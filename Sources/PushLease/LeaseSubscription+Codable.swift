/// `Codable` in the lease plaintext's members (see ``LeaseSubscription``): the same names and
/// values, optional members omitted as the plaintext omits them, and decoding checked by the
/// same initialisers.
extension LeaseFilter: Codable {
  private enum CodingKeys: String, CodingKey {
    case kinds
    case authors
    case pTags = "#p"
    case hTags = "#h"
    case eTags = "#e"
  }

  /// Decodes a filter and checks it as ``init(kinds:authors:pTags:hTags:eTags:descriptor:)``
  /// does without a descriptor; a failed check is `DecodingError.dataCorrupted` with the
  /// rejection's text.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let kinds = try container.decode([Int].self, forKey: .kinds)
    let authors = try container.decodeIfPresent([String].self, forKey: .authors)
    let pTags = try container.decodeIfPresent([String].self, forKey: .pTags)
    let hTags = try container.decodeIfPresent([String].self, forKey: .hTags)
    let eTags = try container.decodeIfPresent([String].self, forKey: .eTags)
    do {
      self = try LeaseFilter(
        kinds: kinds, authors: authors, pTags: pTags, hTags: hTags, eTags: eTags, descriptor: nil)
    } catch {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.message))
    }
  }

  /// Encodes the members in plaintext order, absent ones omitted.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(kinds, forKey: .kinds)
    try container.encodeIfPresent(authors, forKey: .authors)
    try container.encodeIfPresent(pTags, forKey: .pTags)
    try container.encodeIfPresent(hTags, forKey: .hTags)
    try container.encodeIfPresent(eTags, forKey: .eTags)
  }
}

extension LeaseSubscription {
  private enum CodingKeys: String, CodingKey {
    case filter
    case pushClass = "class"
    case ignore
    case suppress
  }

  private enum SuppressKeys: String, CodingKey {
    case pTagsMax = "p_tags_max"
  }

  /// Decodes a subscription and checks it as ``init(filter:class:ignore:pTagsMax:)`` does; a
  /// failed check is `DecodingError.dataCorrupted` with the rejection's text.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let filter = try container.decode(LeaseFilter.self, forKey: .filter)
    let pushClass = try container.decode(String.self, forKey: .pushClass)
    let ignore = try container.decodeIfPresent([LeaseFilter].self, forKey: .ignore) ?? []
    var pTagsMax: Int?
    if try container.contains(.suppress) && !container.decodeNil(forKey: .suppress) {
      let suppress = try container.nestedContainer(keyedBy: SuppressKeys.self, forKey: .suppress)
      pTagsMax = try suppress.decode(Int.self, forKey: .pTagsMax)
    }
    do {
      try self.init(filter: filter, class: pushClass, ignore: ignore, pTagsMax: pTagsMax)
    } catch {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.message))
    }
  }

  /// Encodes `filter`, `class`, then `ignore` only when non-empty and `suppress` only when set.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(filter, forKey: .filter)
    try container.encode(pushClass, forKey: .pushClass)
    if !ignore.isEmpty { try container.encode(ignore, forKey: .ignore) }
    if let pTagsMax {
      var suppress = container.nestedContainer(keyedBy: SuppressKeys.self, forKey: .suppress)
      try suppress.encode(pTagsMax, forKey: .pTagsMax)
    }
  }
}
