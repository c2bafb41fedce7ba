/// Counters of a file-backed storage, for tests and debugging.
public struct FileStorageDiagnostics: Sendable, Hashable {
    /// Files written successfully (each write replaces the whole file once).
    public var writeCount: Int = 0
    /// Writes that failed (the changes stay pending and are retried on the next write).
    public var failedWriteCount: Int = 0
    /// Whether the file was unreadable at creation and was moved aside with a `.corrupt` suffix.
    public var recoveredFromCorruptFile: Bool = false
    /// Whether values were set or removed since the last successful write.
    public var hasPendingChanges: Bool = false

    public init() {}
}
