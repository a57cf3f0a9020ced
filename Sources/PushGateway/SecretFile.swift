import NostrPushCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the files a gateway configuration names, bounded: a secret (the sealing key, an APNs
/// signing key, a certificate's private key) only when no one but its owner may read it.
///
/// The check is made on the opened descriptor (`fstat`), so the file read is the file checked.
/// Decision: "mode 0600" is read as "no permission bit for group or others" (`mode & 0o077 ==
/// 0`), so an owner-read-only 0400 file is accepted as well; a symlink is followed (secret
/// mounts are often symlinks) and its target is what is checked.
enum SecretFile {
  /// The bytes of the regular file at `path`, at most `maxBytes`; with `secret`, refused
  /// (`insecure_secret_file`) when its mode lets the group or others read or write it.
  ///
  /// - Throws: `unreadable_file` (naming `field`) when it cannot be opened, is not a regular
  ///   file or is larger than `maxBytes`.
  static func read(_ path: String, field: String, maxBytes: Int, secret: Bool)
    throws(PushGatewayConfigurationError) -> [UInt8]
  {
    guard !path.isEmpty, !path.utf8.contains(0) else {
      throw PushGatewayConfigurationError(code: .invalidField, field: field, message: "an empty path")
    }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw PushGatewayConfigurationError(
        code: .unreadableFile, field: field, message: "cannot open \(path) (errno \(errno))")
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
      throw PushGatewayConfigurationError(
        code: .unreadableFile, field: field, message: "\(path) is not a regular file")
    }
    if secret, status.st_mode & 0o077 != 0 {
      throw PushGatewayConfigurationError(
        code: .insecureSecretFile, field: field,
        message:
          "\(path) has mode \(String(status.st_mode & 0o777, radix: 8)); a secret must be 0600 (chmod 600)")
    }
    guard Int(status.st_size) <= maxBytes else {
      throw PushGatewayConfigurationError(
        code: .unreadableFile, field: field, message: "\(path) is over \(maxBytes) bytes")
    }
    var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
    var count = 0
    while count < bytes.count {
      let got = bytes.withUnsafeMutableBytes { buffer in
        readSome(descriptor, buffer.baseAddress! + count, buffer.count - count)
      }
      if got < 0, errno == EINTR { continue }
      guard got >= 0 else {
        throw PushGatewayConfigurationError(
          code: .unreadableFile, field: field, message: "cannot read \(path) (errno \(errno))")
      }
      if got == 0 { break }
      count += got
    }
    guard count <= maxBytes else {
      throw PushGatewayConfigurationError(
        code: .unreadableFile, field: field, message: "\(path) is over \(maxBytes) bytes")
    }
    return Array(bytes[..<count])
  }
}

#if canImport(Glibc)
private let readSome = Glibc.read
#elseif canImport(Darwin)
private let readSome = Darwin.read
#endif
