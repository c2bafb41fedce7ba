/// Why a file-backed storage could not be created.
///
/// Thrown by the initialisers; the description always names the path concerned, so a log
/// line says which directory to fix.
public enum FileStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A suite name or app id that cannot be used as one path component (empty, `.`,
    /// `..`, or containing `/` or NUL).
    case invalidName(String)
    /// The directory could not be created, or a file could not be created in it.
    case directoryNotWritable(path: String, reason: String)
    /// The storage file exists but cannot be read (permissions, or it is a directory).
    case fileNotReadable(path: String, reason: String)
    /// No home or data directory is known to put the file in; pass a directory explicitly.
    case noDataDirectory(reason: String)

    /// The path the error is about, if any.
    public var path: String? {
        switch self {
        case .directoryNotWritable(let path, _), .fileNotReadable(let path, _): return path
        case .invalidName, .noDataDirectory: return nil
        }
    }

    public var description: String {
        switch self {
        case .invalidName(let name):
            return "Invalid storage name \"\(name)\": it must be one non-empty path component without \"/\""
        case .directoryNotWritable(let path, let reason):
            return "Storage directory \(path) is not writable: \(reason)"
        case .fileNotReadable(let path, let reason):
            return "Storage file \(path) cannot be read: \(reason)"
        case .noDataDirectory(let reason):
            return "No data directory for storage: \(reason); pass a directory explicitly"
        }
    }
}
