import NostrEvent
import _NostrSQLite

extension EnrichmentCache {
  /// The stored avatar of `pubkey`, only while its URL is still the profile's picture.
  package func lookupAvatar(
    account: String, relay: RelayOrigin, pubkey: String, now: Int64
  ) throws(CacheError) -> Cached<Avatar>? {
    try HexKey.check(account, field: "account")
    try HexKey.check(pubkey, field: "pubkey")
    let key: [SQLiteValue] = [.text(account), .text(relay.description), .text(pubkey)]
    return try locked { db throws(CacheError) in
      let found = try db.first(
        """
        SELECT a.url, a.content_type, a.bytes, a.etag, a.last_modified, a.fetched_at, a.used_at
        FROM avatars a JOIN profiles p
          ON p.account = a.account AND p.relay = a.relay AND p.pubkey = a.pubkey AND p.picture = a.url
        WHERE a.account = ? AND a.relay = ? AND a.pubkey = ?
        """, key
      ) { row -> (Cached<Avatar>, Int64)? in
        guard let format = row.text(1).flatMap(ImageFormat.init(contentType:)) else { return nil }
        let avatar = Avatar(
          url: row.text(0) ?? "", format: format, bytes: row.blob(2) ?? [], etag: row.text(3),
          lastModified: row.text(4))
        return (Cached(value: avatar, fetchedAt: row.integer(5), now: now), row.integer(6))
      }
      guard let (avatar, usedAt) = found ?? nil else { return nil }
      if now - usedAt >= Self.avatarTouchInterval || now < usedAt {
        _ = try? db.immediateTransaction { () throws(CacheError) in
          try db.run(
            "UPDATE avatars SET used_at = ? WHERE account = ? AND relay = ? AND pubkey = ?",
            [.integer(now)] + key)
        }
      }
      return avatar
    }
  }

  /// Stores downloaded avatar bytes for `pubkey`'s current picture `url`.
  ///
  /// Throws `invalidImage` unless the bytes are PNG, JPEG, GIF or WebP of at most
  /// `Avatar.maxBytes`; returns `ignoredOlder` when `url` is no longer the profile's picture.
  @discardableResult
  package func storeAvatar(
    account: String, relay: RelayOrigin, pubkey: String, url: String, bytes: [UInt8], etag: String?,
    lastModified: String?, now: Int64
  ) throws(CacheError) -> StoreOutcome {
    try HexKey.check(account, field: "account")
    try HexKey.check(pubkey, field: "pubkey")
    guard bytes.count <= Avatar.maxBytes else {
      throw CacheError(code: .invalidImage, field: "bytes", message: "larger than 512 KiB")
    }
    guard let format = ImageFormat(sniffing: bytes) else {
      throw CacheError(code: .invalidImage, field: "bytes", message: "not PNG, JPEG, GIF or WebP")
    }
    let etag = etag.flatMap { $0.utf8.count <= Self.maxValidatorBytes ? $0 : nil }
    let lastModified = lastModified.flatMap { $0.utf8.count <= Self.maxValidatorBytes ? $0 : nil }
    let key: [SQLiteValue] = [.text(account), .text(relay.description), .text(pubkey)]
    return try write(account: account, discarded: .discardedAccountRemoved) { db throws(CacheError) in
      let current = try db.first(
        "SELECT picture FROM profiles WHERE account = ? AND relay = ? AND pubkey = ?", key
      ) { row in row.text(0) }
      guard let current, current == url else { return .ignoredOlder }
      try db.run(
        """
        INSERT OR REPLACE INTO avatars(account, relay, pubkey, url, content_type, bytes, etag, last_modified,
          fetched_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        key + [
          .text(url), .text(format.contentType), .blob(bytes), .text(etag),
          .text(lastModified),
          .integer(now), .integer(now),
        ])
      return .stored
    }
  }

  /// Renews the fetch time of a stored avatar after a `304 Not Modified` for the same URL.
  @discardableResult
  package func renewAvatar(
    account: String, relay: RelayOrigin, pubkey: String, url: String, now: Int64
  ) throws(CacheError) -> StoreOutcome {
    try HexKey.check(account, field: "account")
    try HexKey.check(pubkey, field: "pubkey")
    return try write(account: account, discarded: .discardedAccountRemoved) { db throws(CacheError) in
      let changed = try db.run(
        "UPDATE avatars SET fetched_at = ? WHERE account = ? AND relay = ? AND pubkey = ? AND url = ?",
        [.integer(now), .text(account), .text(relay.description), .text(pubkey), .text(url)])
      return changed == 1 ? .renewed : .ignoredOlder
    }
  }
}
