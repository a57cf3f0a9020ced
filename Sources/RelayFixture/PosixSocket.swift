#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the POSIX socket calls the fixture uses, identical on Linux and Darwin.
///
/// Every descriptor is close-on-exec; sends never block and never raise `SIGPIPE`. Waiting is the
/// connection loop's job (one `poll()` over every socket and the stop pipe).
enum PosixSocket {
  #if canImport(Glibc)
  private static let streamType = Int32(SOCK_STREAM.rawValue)
  private static let sendFlags = Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)
  #else
  private static let streamType = SOCK_STREAM
  private static let sendFlags = MSG_DONTWAIT
  #endif

  /// The text of the current `errno`.
  static var lastError: String { String(cString: strerror(errno)) }

  /// Creates a listening socket bound to `address` and `port`; returns it with the bound port.
  static func listen(on address: LoopbackAddress, port: Int, backlog: Int32) throws(RelayFixtureError) -> (
    descriptor: Int32, port: Int
  ) {
    let family: Int32
    switch address.storage {
    case .ipv4: family = AF_INET
    case .ipv6: family = AF_INET6
    }
    let descriptor = socket(family, streamType, 0)
    guard descriptor >= 0 else {
      throw RelayFixtureError(code: .socket, field: "host", message: "socket(): \(lastError)")
    }
    setCloseOnExec(descriptor)
    var one: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    let bound: Int32
    switch address.storage {
    case .ipv4(let bytes):
      var socketAddress = sockaddr_in()
      socketAddress.sin_family = sa_family_t(AF_INET)
      socketAddress.sin_port = UInt16(port).bigEndian
      withUnsafeMutableBytes(of: &socketAddress.sin_addr) { $0.copyBytes(from: bytes) }
      bound = withUnsafePointer(to: &socketAddress) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
    case .ipv6(let bytes):
      setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
      var socketAddress = sockaddr_in6()
      socketAddress.sin6_family = sa_family_t(AF_INET6)
      socketAddress.sin6_port = UInt16(port).bigEndian
      withUnsafeMutableBytes(of: &socketAddress.sin6_addr) { $0.copyBytes(from: bytes) }
      bound = withUnsafePointer(to: &socketAddress) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
        }
      }
    }
    guard bound == 0 else {
      let code: RelayFixtureError.Code = errno == EADDRINUSE ? .addressInUse : .socket
      let message = "bind(\(address.urlHost):\(port)): \(lastError)"
      close(descriptor)
      throw RelayFixtureError(code: code, field: "port", message: message)
    }
    guard posixListen(descriptor, backlog) == 0 else {
      let message = "listen(): \(lastError)"
      close(descriptor)
      throw RelayFixtureError(code: .socket, field: "port", message: message)
    }
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let named = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else {
      let message = "getsockname(): \(lastError)"
      close(descriptor)
      throw RelayFixtureError(code: .socket, field: "port", message: message)
    }
    let boundPort: UInt16 =
      switch address.storage {
      case .ipv4:
        withUnsafePointer(to: &storage) {
          $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
      case .ipv6:
        withUnsafePointer(to: &storage) {
          $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
      }
    return (descriptor, Int(boundPort))
  }

  /// Accepts one pending connection; nil when none was pending or the call failed.
  static func accept(from listener: Int32) -> Int32? {
    let descriptor = posixAccept(listener)
    guard descriptor >= 0 else { return nil }
    setCloseOnExec(descriptor)
    var one: Int32 = 1
    setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    #if canImport(Darwin)
    setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    #endif
    return descriptor
  }

  /// Writes what the socket takes now of the `count` bytes at `pointer`: the number written, 0
  /// when the socket's buffer is full, nil when the peer is gone or the call failed.
  static func sendSome(_ pointer: UnsafeRawPointer, count: Int, to descriptor: Int32) -> Int? {
    let written = posixSend(descriptor, pointer, count, sendFlags)
    if written >= 0 { return written }
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : nil
  }

  /// Makes `descriptor` non-blocking.
  static func setNonBlocking(_ descriptor: Int32) {
    let flags = fcntl(descriptor, F_GETFL)
    if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
  }

  /// Creates the stop pipe: reading end first, writing end second.
  static func makePipe() throws(RelayFixtureError) -> (read: Int32, write: Int32) {
    var descriptors: [Int32] = [0, 0]
    guard pipe(&descriptors) == 0 else {
      throw RelayFixtureError(code: .socket, field: "host", message: "pipe(): \(lastError)")
    }
    setCloseOnExec(descriptors[0])
    setCloseOnExec(descriptors[1])
    return (descriptors[0], descriptors[1])
  }

  /// Whole milliseconds in `duration`, rounded down.
  static func milliseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return seconds * 1000 + attoseconds / 1_000_000_000_000_000
  }

  private static func setCloseOnExec(_ descriptor: Int32) {
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
  }
}

private func posixListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 {
  listen(descriptor, backlog)
}

private func posixAccept(_ descriptor: Int32) -> Int32 {
  accept(descriptor, nil, nil)
}

private func posixSend(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int
{
  send(descriptor, pointer, count, flags)
}
