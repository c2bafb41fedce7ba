#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system call, with the path and `errno` text for the log.
struct SystemCallError: Error, CustomStringConvertible {
    let operation: String
    let path: String
    let code: Int32

    var reason: String { "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))" }
    var description: String { "\(path): \(reason)" }
}

/// Whole-file reads and crash-safe whole-file replacement with POSIX calls.
///
/// Foundation's atomic write neither syncs nor lets us choose the mode, so the storage
/// writes a private temporary file in the same directory, syncs it, renames it over the
/// target (atomic on POSIX file systems) and syncs the directory so the rename survives a
/// power loss.
enum AtomicFile {
    /// Permissions of every file the storage creates: owner read/write only.
    static let fileMode: mode_t = 0o600

    /// Reads a whole file; `nil` when it does not exist.
    static func read(path: String) throws(SystemCallError) -> Data? {
        let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw SystemCallError(operation: "open", path: path, code: code)
        }
        defer { close(fd) }
        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                retryingOnInterrupt { Int(systemRead(fd, raw.baseAddress, raw.count)) }
            }
            if count < 0 { throw SystemCallError(operation: "read", path: path, code: errno) }
            if count == 0 { return contents }
            contents.append(contentsOf: buffer[0..<count])
        }
    }

    /// Replaces the file at `path` with `data`: all of the new contents or (after a crash)
    /// all of the old, never a mix.
    static func replace(path: String, in directory: String, with data: Data) throws(SystemCallError) {
        let temporaryPath = temporaryName(for: path, in: directory)
        let fd = retryingOnInterrupt { open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode) }
        if fd < 0 { throw SystemCallError(operation: "open", path: temporaryPath, code: errno) }
        var descriptor: Int32? = fd
        do throws(SystemCallError) {
            // The umask may have cleared bits of `fileMode`; set it exactly.
            if fchmod(fd, fileMode) != 0 {
                throw SystemCallError(operation: "fchmod", path: temporaryPath, code: errno)
            }
            try writeAll(data, to: fd, path: temporaryPath)
            if fsync(fd) != 0 { throw SystemCallError(operation: "fsync", path: temporaryPath, code: errno) }
            descriptor = nil
            if close(fd) != 0 { throw SystemCallError(operation: "close", path: temporaryPath, code: errno) }
            if rename(temporaryPath, path) != 0 { throw SystemCallError(operation: "rename", path: path, code: errno) }
        } catch {
            if let descriptor { close(descriptor) }
            unlink(temporaryPath)
            throw error
        }
        syncDirectory(directory)
    }

    /// Checks that files can be created in `directory` by creating and deleting one.
    ///
    /// `access(W_OK)` is not enough: it says yes to root for a read-only directory and knows
    /// nothing of read-only mounts.
    static func probeWritable(directory: String) throws(SystemCallError) {
        let probePath = directory + "/.telemetrykit-probe-" + UUID().uuidString
        let fd = retryingOnInterrupt { open(probePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode) }
        if fd < 0 { throw SystemCallError(operation: "create a file", path: directory, code: errno) }
        close(fd)
        unlink(probePath)
    }

    /// Renames `path` to `destination`, replacing any file already there.
    static func move(path: String, to destination: String) throws(SystemCallError) {
        if rename(path, destination) != 0 { throw SystemCallError(operation: "rename", path: path, code: errno) }
    }

    /// Runs `body` while holding an exclusive advisory lock (`flock`) on `lockPath`, created
    /// with mode 0600 if needed, so that processes sharing a storage file (an app and its
    /// extensions, several workers) read-merge-write it one at a time. The lock belongs to
    /// this open file description: it also orders two storages on one file in one process,
    /// and it is released when the process dies, so a killed writer never blocks the others.
    static func withExclusiveLock<Result>(path lockPath: String, _ body: () throws -> Result) throws -> Result {
        let fd = retryingOnInterrupt { open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, fileMode) }
        if fd < 0 { throw SystemCallError(operation: "open", path: lockPath, code: errno) }
        defer { close(fd) }
        if retryingOnInterrupt({ flock(fd, LOCK_EX) }) != 0 {
            throw SystemCallError(operation: "flock", path: lockPath, code: errno)
        }
        // Unlocked explicitly rather than by the close: a child process being started holds a
        // copy of the descriptor until it runs its program, and would hold the lock until then.
        defer { _ = flock(fd, LOCK_UN) }
        return try body()
    }

    private static func temporaryName(for path: String, in directory: String) -> String {
        let fileName = path.split(separator: "/").last.map(String.init) ?? "storage"
        return directory + "/." + fileName + "." + UUID().uuidString + ".tmp"
    }

    private static func writeAll(_ data: Data, to fd: Int32, path: String) throws(SystemCallError) {
        let failure: Int32? = data.withUnsafeBytes { raw -> Int32? in
            guard let base = raw.baseAddress else { return nil }
            var offset = 0
            while offset < raw.count {
                let written = retryingOnInterrupt { Int(systemWrite(fd, base + offset, raw.count - offset)) }
                if written < 0 { return errno }
                offset += written
            }
            return nil
        }
        if let failure { throw SystemCallError(operation: "write", path: path, code: failure) }
    }

    /// Makes the rename durable. Best effort: some file systems refuse to sync a directory,
    /// and the file contents are already synced.
    private static func syncDirectory(_ directory: String) {
        let fd = retryingOnInterrupt { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private static func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}

private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.read(fd, buffer, count)
    #elseif canImport(Glibc)
    return Glibc.read(fd, buffer, count)
    #elseif canImport(Musl)
    return Musl.read(fd, buffer, count)
    #endif
}

private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.write(fd, buffer, count)
    #elseif canImport(Glibc)
    return Glibc.write(fd, buffer, count)
    #elseif canImport(Musl)
    return Musl.write(fd, buffer, count)
    #endif
}
