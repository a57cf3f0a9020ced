/// Avatar downloads running in this process, so two notifications needing the same picture at
/// once share one download.
actor InFlightAvatars {
  /// The process-wide table.
  static let shared = InFlightAvatars()

  private var running: [String: Task<AvatarFetcher.Result, Never>] = [:]

  /// The result of the download for `key`: joins a running one, else starts `download`.
  func result(
    for key: String, download: @escaping @Sendable () async -> AvatarFetcher.Result
  ) async -> AvatarFetcher.Result {
    if let task = running[key] { return await task.value }
    let task = Task { await download() }
    running[key] = task
    let result = await task.value
    running[key] = nil
    return result
  }
}
