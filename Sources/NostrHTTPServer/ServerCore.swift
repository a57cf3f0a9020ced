internal import CMicroHTTPD
import NostrPushCore
import NostrWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A libmicrohttpd connection pointer handed to a handler's task.
///
/// `@unchecked Sendable`: the task only queues a response on it while it is suspended (which
/// libmicrohttpd allows from any thread) and resumes it; the connection cannot go away while it
/// is suspended, and the server never stops the daemon before every suspended one was resumed.
struct ConnectionHandle: @unchecked Sendable {
  let pointer: OpaquePointer
  var key: UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pointer))) }
}

/// One request's state from its request line to libmicrohttpd's completion notice.
///
/// `@unchecked Sendable`: every field but `pending` is touched only on libmicrohttpd's one
/// internal thread (the callbacks run there); `pending` is the handler's answer, handed over
/// through a `Locked` box.
final class RequestContext: @unchecked Sendable {
  enum Stage { case head, body, handling, answered }

  let target: String
  var stage = Stage.head
  var method = ""
  var headers: [(name: String, value: String)] = []
  var remoteAddress = ""
  var route: HTTPServerRoute?
  var body: [UInt8] = []
  var overLimit = false
  /// Body bytes read and dropped after the body went over its limit.
  var discarded = 0
  /// Whether a handler task ran for it (the request counts as in flight until completion).
  var dispatched = false
  let pending = Locked<HTTPServerResponse?>(nil)

  init(target: String) { self.target = target }

  var path: Substring { target.firstIndex(of: "?").map { target[..<$0] } ?? target[...] }
}

/// The server's state behind libmicrohttpd's callbacks: the route table, the limits, the
/// requests in flight and the stop sequence.
///
/// Threading (chosen and measured, see ``HTTPServer``): one internal libmicrohttpd thread polls
/// every socket (epoll on Linux) and runs the callbacks below; a complete request suspends its
/// connection (`MHD_suspend_connection`) and runs its handler as a Swift task; the task stores
/// the answer and resumes the connection (`MHD_resume_connection`, woken through MHD's
/// inter-thread channel), and the access handler, called again, queues it. A slow handler
/// therefore holds no thread, and a slow client holds only its socket.
final class ServerCore: @unchecked Sendable {
  // `@unchecked Sendable`: the immutable fields are set before the daemon starts; the mutable
  // state is one `Locked` value; `daemon` is written once by `start` before any callback can run
  // a task that reads it, and cleared by `stop` after every task ended.

  private struct State {
    var inFlight = 0
    var tasks: [UInt64: Task<Void, Never>] = [:]
    var nextTask: UInt64 = 0
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    var stopping = false
    var webSockets: [ObjectIdentifier: HTTPServerWebSocket] = [:]
    var webSocketsEnded: [CheckedContinuation<Void, Never>] = []
  }

  /// The most body bytes read and dropped after a chunked body went over its route's limit
  /// (libmicrohttpd cannot answer before the body ended); past it the connection is closed
  /// without an answer.
  static let maxDiscardedBodyBytes = 1024 * 1024

  let configuration: HTTPServerConfiguration
  let router: HTTPServerRouter
  let deadlines: HeadReadDeadlines
  private let state = Locked(State())
  var daemon: OpaquePointer?

  init(configuration: HTTPServerConfiguration, router: HTTPServerRouter) {
    self.configuration = configuration
    self.router = router
    self.deadlines = HeadReadDeadlines(timeout: configuration.headerReadTimeout)
  }

  var isStopping: Bool { state.withLock { $0.stopping } }

  // MARK: Callbacks (on libmicrohttpd's thread)

  func uriArrived(_ uri: UnsafePointer<CChar>?, connection: OpaquePointer?) -> UnsafeMutableRawPointer? {
    if let connection { deadlines.requestLineArrived(ConnectionHandle(pointer: connection).key) }
    let context = RequestContext(target: uri.map { String(cString: $0) } ?? "")
    return Unmanaged.passRetained(context).toOpaque()
  }

  func access(
    _ connection: OpaquePointer, method: UnsafePointer<CChar>?, upload: UnsafePointer<CChar>?,
    uploadSize: UnsafeMutablePointer<Int>, context pointer: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> MHD_Result {
    let context: RequestContext
    if let raw = pointer.pointee {
      context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
    } else {
      context = RequestContext(target: "")
      pointer.pointee = Unmanaged.passRetained(context).toOpaque()
    }
    let handle = ConnectionHandle(pointer: connection)
    switch context.stage {
    case .head:
      deadlines.headComplete(handle.key)
      return begin(context, handle, method: method.map { String(cString: $0) } ?? "")
    case .body:
      let count = uploadSize.pointee
      if count > 0 {
        uploadSize.pointee = 0
        guard let route = context.route else { return .YES }
        if context.overLimit {
          // libmicrohttpd takes no answer mid-body: the rest is read and dropped, up to a bound.
          context.discarded += count
          return context.discarded <= Self.maxDiscardedBodyBytes ? .YES : .NO
        }
        guard context.body.count + count <= route.maxBodyBytes else {
          context.overLimit = true
          context.body = []
          return .YES
        }
        if let upload {
          upload.withMemoryRebound(to: UInt8.self, capacity: count) {
            context.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
          }
        }
        return .YES
      }
      if context.overLimit {
        context.stage = .answered
        return queue(.error(413, "payload_too_large"), on: handle, close: true)
      }
      return dispatch(context, handle)
    case .handling:
      guard
        let response = context.pending.withLock({ pending in
          defer { pending = nil }
          return pending
        })
      else { return .YES }
      context.stage = .answered
      return queue(response, on: handle, close: isStopping)
    case .answered:
      uploadSize.pointee = 0
      return .YES
    }
  }

  func completed(context pointer: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
    guard let raw = pointer?.pointee else { return }
    pointer?.pointee = nil
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
    guard context.dispatched else { return }
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.inFlight -= 1
      guard state.inFlight == 0 else { return [] }
      defer { state.idleWaiters = [] }
      return state.idleWaiters
    }
    for waiter in waiters { waiter.resume() }
  }

  func connectionStarted(_ connection: OpaquePointer) {
    let descriptor = nostrpush_mhd_connection_fd(connection)
    if descriptor >= 0 {
      deadlines.accepted(ConnectionHandle(pointer: connection).key, descriptor: descriptor)
    }
  }

  func connectionClosed(_ connection: OpaquePointer) {
    deadlines.closed(ConnectionHandle(pointer: connection).key)
  }

  // MARK: Request stages

  private func begin(_ context: RequestContext, _ handle: ConnectionHandle, method: String) -> MHD_Result {
    context.stage = .body
    context.method = method
    context.headers = Self.headers(of: handle.pointer)
    context.remoteAddress = Self.clientAddress(of: handle.pointer)
    let hasBody = context.headers.contains {
      ($0.name == "content-length" && $0.value != "0") || $0.name == "transfer-encoding"
    }
    func answer(_ response: HTTPServerResponse) -> MHD_Result {
      context.stage = .answered
      return queue(response, on: handle, close: hasBody || isStopping)
    }
    let headBytes = HTTPServerRequest.headBytes(
      method: method, target: context.target, headers: context.headers)
    if headBytes > configuration.maxHeaderBytes { return answer(.error(431, "header_fields_too_large")) }
    if isStopping { return answer(.error(503, "stopping")) }
    let route: HTTPServerRoute
    switch router.match(method: method, path: context.path) {
    case .notFound: return answer(.error(404, "not_found"))
    case .methodNotAllowed: return answer(.error(405, "method_not_allowed"))
    case .route(let found): route = found
    }
    if route.webSocket != nil, WebSocketUpgrade.isRequested(context.headers) {
      context.stage = .answered
      context.route = route
      return upgrade(context, handle)
    }
    if let length = context.headers.first(where: { $0.name == "content-length" }).flatMap({ Int($0.value) }),
      length > route.maxBodyBytes
    {
      return answer(.error(413, "payload_too_large"))
    }
    context.route = route
    return .YES
  }

  private func dispatch(_ context: RequestContext, _ handle: ConnectionHandle) -> MHD_Result {
    guard let route = context.route else {
      context.stage = .answered
      return queue(.error(500, "internal_error"), on: handle, close: true)
    }
    let request = HTTPServerRequest(
      method: context.method, target: context.target, headers: context.headers, body: context.body,
      remoteAddress: context.remoteAddress)
    context.body = []
    context.stage = .handling
    context.dispatched = true
    MHD_suspend_connection(handle.pointer)
    state.withLock { state in
      state.inFlight += 1
      state.nextTask += 1
      let id = state.nextTask
      let pending = context.pending
      state.tasks[id] = Task { [weak self] in
        let response = await route.handler(request)
        pending.withLock { $0 = response }
        MHD_resume_connection(handle.pointer)
        self?.state.withLock { _ = $0.tasks.removeValue(forKey: id) }
      }
    }
    return .YES
  }

  private func upgrade(_ context: RequestContext, _ handle: ConnectionHandle) -> MHD_Result {
    guard let accept = WebSocketUpgrade.acceptValue(for: context.headers) else {
      return queue(.error(400, "bad_websocket_upgrade"), on: handle, close: true)
    }
    // The ticket is released by the upgrade callback (one request's context is leaked if the
    // client leaves before the 101 is sent, since libmicrohttpd then never calls it).
    let ticket = Unmanaged.passRetained(UpgradeTicket(core: self, context: context)).toOpaque()
    guard let response = MHD_create_response_for_upgrade(upgradeHandler, ticket) else {
      Unmanaged<UpgradeTicket>.fromOpaque(ticket).release()
      return .NO
    }
    defer { MHD_destroy_response(response) }
    MHD_add_response_header(response, "Upgrade", "websocket")
    MHD_add_response_header(response, "Sec-WebSocket-Accept", accept)
    return MHD_queue_response(handle.pointer, 101, response)
  }

  /// libmicrohttpd handed over the socket of an upgraded connection.
  func upgraded(
    context: RequestContext, extra: UnsafePointer<CChar>?, extraCount: Int, socket: Int32,
    handle urh: OpaquePointer?
  ) {
    guard let urh else { return }
    let leftover: [UInt8] =
      extra.map { pointer in
        pointer.withMemoryRebound(to: UInt8.self, capacity: extraCount) {
          Array(UnsafeBufferPointer(start: $0, count: extraCount))
        }
      } ?? []
    let request = HTTPServerRequest(
      method: context.method, target: context.target, headers: context.headers,
      remoteAddress: context.remoteAddress)
    guard let handler = context.route?.webSocket else {
      _ = nostrpush_mhd_upgrade_close(urh)
      return
    }
    let upgradeHandle = UpgradeHandle(pointer: urh)
    let socketConnection = HTTPServerWebSocket(descriptor: socket, leftover: leftover) {
      _ = nostrpush_mhd_upgrade_close(upgradeHandle.pointer)
    }
    state.withLock { $0.webSockets[ObjectIdentifier(socketConnection)] = socketConnection }
    socketConnection.start()
    Task { [weak self] in
      await handler(request, socketConnection)
      await socketConnection.close()
      self?.webSocketEnded(socketConnection)
    }
  }

  private func webSocketEnded(_ socket: HTTPServerWebSocket) {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.webSockets[ObjectIdentifier(socket)] = nil
      guard state.webSockets.isEmpty else { return [] }
      defer { state.webSocketsEnded = [] }
      return state.webSocketsEnded
    }
    for waiter in waiters { waiter.resume() }
  }

  // MARK: Responses

  /// Queues `response` on the connection; a header libmicrohttpd refuses (a line break in it)
  /// turns the answer into 500.
  private func queue(_ response: HTTPServerResponse, on handle: ConnectionHandle, close: Bool) -> MHD_Result {
    let made = response.body.withUnsafeBytes { bytes in
      MHD_create_response_from_buffer(
        bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    var status = response.status
    for header in response.headers where MHD_add_response_header(made, header.name, header.value) != .YES {
      status = 500
    }
    if close { MHD_add_response_header(made, "Connection", "close") }
    guard (100...599).contains(status), status != 101 else {
      return MHD_queue_response(handle.pointer, 500, made)
    }
    return MHD_queue_response(handle.pointer, UInt32(status), made)
  }

  // MARK: Stop

  /// Refuses new requests from now on; false when a stop began before.
  func beginStop() -> Bool {
    state.withLock { state in
      defer { state.stopping = true }
      return !state.stopping
    }
  }

  /// Returns when no handler runs and every answered request was sent (or `deadline` passed).
  func waitForIdle(until deadline: ContinuousClock.Instant?) async -> Bool {
    let wait: @Sendable () async -> Void = { [self] in
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let idle = state.withLock { state in
          if state.inFlight == 0 { return true }
          state.idleWaiters.append(continuation)
          return false
        }
        if idle { continuation.resume() }
      }
    }
    guard let deadline else {
      await wait()
      return true
    }
    return await DeadlineRace.value(by: deadline, wait) != nil
  }

  /// Cancels every running handler.
  func cancelHandlers() {
    for task in state.withLock({ Array($0.tasks.values) }) { task.cancel() }
  }

  /// Ends every upgraded connection and returns when their handlers returned.
  func endWebSockets() async {
    for socket in state.withLock({ Array($0.webSockets.values) }) { socket.abort() }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let none = state.withLock { state in
        if state.webSockets.isEmpty { return true }
        state.webSocketsEnded.append(continuation)
        return false
      }
      if none { continuation.resume() }
    }
  }

  // MARK: Reading the head

  private static func headers(of connection: OpaquePointer) -> [(name: String, value: String)] {
    let box = HeaderBox()
    withExtendedLifetime(box) {
      _ = MHD_get_connection_values(
        connection, .HEADER_KIND,
        { cls, _, key, value in
          guard let cls, let key else { return .YES }
          let box = Unmanaged<HeaderBox>.fromOpaque(cls).takeUnretainedValue()
          box.fields.append((String(cString: key).lowercased(), value.map { String(cString: $0) } ?? ""))
          return .YES
        }, Unmanaged.passUnretained(box).toOpaque())
    }
    return box.fields
  }

  private static func clientAddress(of connection: OpaquePointer) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    guard nostrpush_mhd_client_address(connection, &buffer, buffer.count) != 0 else { return "" }
    let length = buffer.firstIndex(of: 0) ?? buffer.count
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// The header fields collected by one `MHD_get_connection_values` walk.
private final class HeaderBox {
  var fields: [(name: String, value: String)] = []
}

/// An upgraded connection's handle for `MHD_upgrade_action`.
///
/// `@unchecked Sendable`: libmicrohttpd allows the close action from any thread, once.
struct UpgradeHandle: @unchecked Sendable {
  let pointer: OpaquePointer
}

// MARK: C entry points

/// Called by libmicrohttpd on its thread for each step of a request.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, _, method, _, upload, uploadSize, context in
  guard let cls, let connection, let uploadSize, let context else { return .NO }
  return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().access(
    connection, method: method, upload: upload, uploadSize: uploadSize, context: context)
}

/// Called once a request is done with (answered, or its connection failed).
let completedHandler: MHD_RequestCompletedCallback = { cls, _, context, _ in
  guard let cls else { return }
  Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().completed(context: context)
}

/// Called when a connection is accepted and when it is closed.
let connectionHandler: MHD_NotifyConnectionCallback = { cls, connection, _, code in
  guard let cls, let connection else { return }
  let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
  if code == .CONNECTION_NOTIFY_STARTED {
    core.connectionStarted(connection)
  } else {
    core.connectionClosed(connection)
  }
}

/// Called when a request line arrived: makes the request's context, with the raw target.
let uriLogHandler: nostrpush_mhd_uri_log_callback = { cls, uri, connection in
  guard let cls else { return nil }
  return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().uriArrived(uri, connection: connection)
}

/// Called when libmicrohttpd hands over an upgraded socket.
let upgradeHandler: MHD_UpgradeHandler = { cls, _, _, extra, extraCount, socket, urh in
  guard let cls else { return }
  let ticket = Unmanaged<UpgradeTicket>.fromOpaque(cls).takeRetainedValue()
  ticket.core.upgraded(
    context: ticket.context, extra: extra, extraCount: extraCount, socket: socket, handle: urh)
}

/// What the upgrade callback needs: the server and the upgraded request's context, kept alive
/// until the callback runs.
final class UpgradeTicket {
  let core: ServerCore
  let context: RequestContext

  init(core: ServerCore, context: RequestContext) {
    self.core = core
    self.context = context
  }
}
