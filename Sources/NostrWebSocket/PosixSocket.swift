#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the POSIX socket calls the WebSocket client and the fixture relay share,
/// identical on Linux and Darwin.
///
/// Every descriptor is close-on-exec; sends never block and never raise `SIGPIPE`. Waiting is
/// the caller's job (one `poll()` over its sockets and a wake pipe).
package enum PosixSocket {
  #if canImport(Glibc)
  package static let streamType = Int32(SOCK_STREAM.rawValue)
  private static let sendFlags = Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)
  #else
  package static let streamType = SOCK_STREAM
  private static let sendFlags = MSG_DONTWAIT
  #endif

  /// The text of the current `errno`.
  package static var lastError: String { String(cString: strerror(errno)) }

  /// Writes what the socket takes now of the `count` bytes at `pointer`: the number written, 0
  /// when the socket's buffer is full, nil when the peer is gone or the call failed.
  package static func sendSome(_ pointer: UnsafeRawPointer, count: Int, to descriptor: Int32) -> Int? {
    let written = posixSend(descriptor, pointer, count, sendFlags)
    if written >= 0 { return written }
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : nil
  }

  /// Reads what has arrived into `buffer`: the count, 0 at end of stream, nil when nothing is
  /// there yet (`EAGAIN`/`EINTR`), -1 on an error.
  package static func receiveSome(_ buffer: UnsafeMutableRawBufferPointer, from descriptor: Int32) -> Int? {
    let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
    if count >= 0 { return count }
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? nil : -1
  }

  /// Makes `descriptor` non-blocking.
  package static func setNonBlocking(_ descriptor: Int32) {
    let flags = fcntl(descriptor, F_GETFL)
    if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
  }

  /// Marks `descriptor` close-on-exec.
  package static func setCloseOnExec(_ descriptor: Int32) {
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
  }

  /// Turns off Nagle's algorithm (and, on Darwin, `SIGPIPE` for the socket).
  package static func setNoDelay(_ descriptor: Int32) {
    var one: Int32 = 1
    setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    #if canImport(Darwin)
    setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    #endif
  }

  /// A close-on-exec pipe, reading end first (both ends non-blocking when asked); nil with
  /// `errno` set when the process is out of descriptors.
  package static func makePipe(nonBlocking: Bool = false) -> (read: Int32, write: Int32)? {
    var descriptors: [Int32] = [0, 0]
    guard pipe(&descriptors) == 0 else { return nil }
    for descriptor in descriptors {
      setCloseOnExec(descriptor)
      if nonBlocking { setNonBlocking(descriptor) }
    }
    return (descriptors[0], descriptors[1])
  }

  /// A `poll()` timeout that wakes at `deadline` (rounded up; 0 when it has passed).
  package static func pollTimeout(until deadline: ContinuousClock.Instant) -> Int32 {
    let now = ContinuousClock.now
    guard deadline > now else { return 0 }
    return Int32(clamping: now.duration(to: deadline).wholeMilliseconds + 1)
  }

  /// The addresses of `host` for a TCP connection to `port` (blocking name lookup), or the
  /// `getaddrinfo` error text.
  package static func resolve(host: String, port: Int) -> Result<[[UInt8]], ResolveFailure> {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = streamType
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, String(port), &hints, &list)
    guard status == 0, let list else {
      return .failure(ResolveFailure(message: String(cString: gai_strerror(status))))
    }
    defer { freeaddrinfo(list) }
    var addresses: [[UInt8]] = []
    var entry: UnsafeMutablePointer<addrinfo>? = list
    while let current = entry {
      if let address = current.pointee.ai_addr {
        addresses.append(
          Array(UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen))))
      }
      entry = current.pointee.ai_next
    }
    return addresses.isEmpty ? .failure(ResolveFailure(message: "no address")) : .success(addresses)
  }

  /// Why a name lookup failed.
  package struct ResolveFailure: Error {
    /// The resolver's text.
    package let message: String
  }

  /// Starts a non-blocking connect to the `sockaddr` bytes in `address`: the descriptor and
  /// whether the connection is already complete, or the `errno` text.
  package static func startConnect(to address: [UInt8]) -> Result<
    (descriptor: Int32, done: Bool), ResolveFailure
  > {
    let family = address.withUnsafeBytes {
      Int32($0.load(fromByteOffset: familyOffset, as: sa_family_t.self))
    }
    let descriptor = socket(family, streamType, 0)
    guard descriptor >= 0 else { return .failure(ResolveFailure(message: "socket(): \(lastError)")) }
    setCloseOnExec(descriptor)
    setNonBlocking(descriptor)
    setNoDelay(descriptor)
    let result = address.withUnsafeBytes {
      posixConnect(descriptor, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
    }
    if result == 0 { return .success((descriptor, true)) }
    if errno == EINPROGRESS || errno == EINTR { return .success((descriptor, false)) }
    let message = lastError
    close(descriptor)
    return .failure(ResolveFailure(message: message))
  }

  /// The pending error of a socket whose non-blocking connect finished (0 when it connected).
  package static func pendingError(_ descriptor: Int32) -> Int32 {
    var value: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return errno }
    return value
  }

  #if canImport(Darwin)
  private static let familyOffset = 1
  #else
  private static let familyOffset = 0
  #endif
}

private func posixSend(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int
{
  send(descriptor, pointer, count, flags)
}

private func posixConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t)
  -> Int32
{
  connect(descriptor, address, length)
}
