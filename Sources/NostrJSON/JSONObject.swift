/// One member of a JSON object, in the position the document gave it.
package struct JSONMember: Sendable, Hashable {
  /// The member name, exactly as decoded.
  package var key: String
  /// The member value.
  package var value: JSONValue

  /// Creates a member.
  package init(key: String, value: JSONValue) {
    self.key = key
    self.value = value
  }
}

/// A JSON object that keeps its members in document order.
///
/// The reader never produces an object with two members of the same name (it reports the
/// duplicate instead), so a lookup by name is unambiguous.
public struct JSONObject: Sendable, Hashable {
  /// The members in document order.
  package var members: [JSONMember]

  /// An empty object, to which members are added with the subscript.
  public init() {
    self.members = []
  }

  /// Creates an object from members in the order they should be written.
  package init(_ members: [JSONMember]) {
    self.members = members
  }

  /// Creates an object from name–value pairs in the order they should be written.
  public init(_ pairs: KeyValuePairs<String, JSONValue>) {
    self.members = pairs.map { JSONMember(key: $0.key, value: $0.value) }
  }

  /// The member names in document order.
  public var keys: [String] { members.map(\.key) }

  /// The number of members.
  public var count: Int { members.count }

  /// The value of the member named `key`, or nil when there is none.
  public subscript(key: String) -> JSONValue? {
    get {
      for member in members where member.key == key { return member.value }
      return nil
    }
    set {
      if let index = members.firstIndex(where: { $0.key == key }) {
        if let newValue {
          members[index].value = newValue
        } else {
          members.remove(at: index)
        }
      } else if let newValue {
        members.append(JSONMember(key: key, value: newValue))
      }
    }
  }
}
