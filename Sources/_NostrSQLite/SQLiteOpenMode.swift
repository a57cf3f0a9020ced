/// How a connection opens its file.
package enum SQLiteOpenMode: Sendable {
  /// Read and write, creating the file when missing (every store).
  case readWrite
  /// Read an existing file; SQLite may still create the `-wal` and `-shm` files of a WAL
  /// database beside it.
  case readOnly
  /// Read an existing file that nothing else is writing (`immutable=1`): no lock, no `-shm`, no
  /// `-wal` is created or read — for a WAL database only when it has no `-wal` file.
  case immutable

  /// The `file:` URI of `path` with `immutable=1`, its `%`, `?` and `#` percent-encoded.
  static func immutableURI(_ path: String) -> String {
    var encoded = ""
    for character in path.unicodeScalars {
      switch character {
      case "%": encoded += "%25"
      case "?": encoded += "%3F"
      case "#": encoded += "%23"
      default: encoded.unicodeScalars.append(character)
      }
    }
    return "file:" + encoded + "?immutable=1"
  }
}
