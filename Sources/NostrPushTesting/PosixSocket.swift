import NostrWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The fixture's own socket calls (listening and accepting); the generic ones (sending,
/// non-blocking mode, pipes) are NostrWebSocket's `PosixSocket`, shared with the client.
extension PosixSocket {
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
      bound = bindSocket(descriptor, to: socketAddress)
    case .ipv6(let bytes):
      setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
      var socketAddress = sockaddr_in6()
      socketAddress.sin6_family = sa_family_t(AF_INET6)
      socketAddress.sin6_port = UInt16(port).bigEndian
      withUnsafeMutableBytes(of: &socketAddress.sin6_addr) { $0.copyBytes(from: bytes) }
      bound = bindSocket(descriptor, to: socketAddress)
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

  /// Sends what the socket takes now of `bytes` from `offset` on: the count sent (0 when it
  /// would block), nil when the peer is gone.
  static func sendSome(_ bytes: [UInt8], from offset: Int, to descriptor: Int32) -> Int? {
    bytes.withUnsafeBytes { sendSome($0.baseAddress! + offset, count: $0.count - offset, to: descriptor) }
  }

  /// Accepts one pending connection; nil when none was pending or the call failed.
  static func accept(from listener: Int32) -> Int32? {
    let descriptor = posixAccept(listener)
    guard descriptor >= 0 else { return nil }
    setCloseOnExec(descriptor)
    setNoDelay(descriptor)
    return descriptor
  }

  /// Creates the stop pipe: reading end first, writing end second.
  static func makeStopPipe() throws(RelayFixtureError) -> (read: Int32, write: Int32) {
    guard let pipe = makePipe() else {
      throw RelayFixtureError(code: .socket, field: "host", message: "pipe(): \(lastError)")
    }
    return pipe
  }
}

/// `bind(2)` to a `sockaddr_in` or `sockaddr_in6`, passed with its own size.
private func bindSocket<Address>(_ descriptor: Int32, to address: Address) -> Int32 {
  withUnsafeBytes(of: address) {
    bind(descriptor, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
  }
}

private func posixListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 {
  listen(descriptor, backlog)
}

private func posixAccept(_ descriptor: Int32) -> Int32 {
  accept(descriptor, nil, nil)
}
