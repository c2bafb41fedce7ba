#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An advisory lock (`flock`) on a lock file beside a cache's file, held while a cache
/// instance has that file open, so that processes sharing the file (an app and its
/// extensions, several workers) see each other.
///
/// Why a file of its own: a cache replaces its file (compaction renames a new journal over the
/// old one; recovery moves a damaged database aside), and a lock on the replaced file would
/// no longer be the lock the next opener takes. The lock file is never renamed or removed.
///
/// Why `flock`: the lock belongs to the open file description, so two instances in one
/// process exclude each other as two processes do (POSIX `fcntl` locks would not), and the
/// kernel releases it when the process dies, so a killed process never blocks the others.
///
/// ```swift
/// let lock = try SidecarFileLock(path: path + ".lock")
/// guard try lock.lock(.exclusive, wait: false) else { throw … }   // another instance has it
/// ```
///
/// ## Converting between shared and exclusive
///
/// An instance that holds the lock shared ("I have the file open") and wants to know whether
/// it is alone converts to exclusive without waiting. `flock` converts by dropping the old
/// lock first, so a failed attempt leaves a moment in which the instance holds nothing: if
/// another instance converted in that moment, it would find itself alone and could replace
/// the file under the first. So conversions (``exclusiveIfAlone()``, ``share()``) take a
/// second lock first, on `<path>-gate`: one conversion at a time, and since every instance
/// outside a conversion holds the main lock, one that gets it exclusively really is alone.
/// Taking the lock shared at opening needs no gate: the kernel grants it, or waits while a
/// converted holder replaces the file.
///
/// Not thread-safe: its owner calls it from one place at a time (inside the cache's lock).
package final class SidecarFileLock {
    /// How the lock is held.
    package enum Mode: Sendable {
        /// Many holders at once: "I have the file open".
        case shared
        /// One holder: "nobody else has the file open".
        case exclusive
    }

    /// A failed system call on the lock file.
    package struct Failure: Error, CustomStringConvertible {
        package var operation: String
        package var path: String
        package var code: Int32

        package var description: String {
            "\(operation) \(path) failed: \(systemErrorDescription(code))"
        }
    }

    /// The lock file.
    package let path: String
    private let descriptor: Int32
    /// The gate's descriptor (`<path>-gate`), opened on the first conversion.
    private var gate: Int32?
    /// How the lock is held now; nil when not held.
    package private(set) var mode: Mode?

    /// Opens (creating with mode 0600 if needed) the lock file; takes no lock yet.
    package init(path: String) throws(Failure) {
        self.path = path
        var fd: Int32
        repeat {
            fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw Failure(operation: "open", path: path, code: errno) }
        descriptor = fd
    }

    deinit {
        // Unlock before closing: a child process being started at this moment holds a copy of
        // the descriptor until it runs its program, and closing ours alone would leave the
        // lock held by that copy (the next instance in this process would be refused).
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
        if let gate { close(gate) }
    }

    /// Takes (or converts to) the lock in `mode`.
    ///
    /// Converting between modes is not atomic (`flock` drops the old lock first): a failed
    /// non-waiting attempt leaves the lock not held (``mode`` is nil), and the caller takes it
    /// again in the mode it had.
    ///
    /// - Parameter wait: whether to wait for other holders to let go; when false and another
    ///   holder excludes `mode`, returns false at once.
    /// - Returns: whether the lock is held in `mode`.
    /// - Throws: ``Failure`` when `flock` fails for another reason than another holder.
    @discardableResult
    package func lock(_ mode: Mode, wait: Bool = true) throws(Failure) -> Bool {
        let operation = (mode == .shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)
        var result: Int32
        repeat {
            result = flock(descriptor, operation)
        } while result != 0 && errno == EINTR
        if result == 0 {
            self.mode = mode
            return true
        }
        let code = errno
        self.mode = nil
        if code == EWOULDBLOCK { return false }
        throw Failure(operation: "flock", path: path, code: code)
    }

    /// Converts a shared lock to exclusive if no other instance holds the lock, under the gate
    /// (see "Converting between shared and exclusive").
    ///
    /// - Returns: true with the lock held exclusively (give it back with ``share()``); false
    ///   with the lock held shared, as before.
    package func exclusiveIfAlone() throws(Failure) -> Bool {
        try throughGate { () throws(Failure) -> Bool in
            if try lock(.exclusive, wait: false) { return true }
            // Immediate: only a conversion, which the gate holds off, takes it exclusively.
            try lock(.shared)
            return false
        }
    }

    /// Converts an exclusive lock back to shared, under the gate.
    package func share() throws(Failure) {
        try throughGate { () throws(Failure) -> Void in
            _ = try lock(.shared)
        }
    }

    private func throughGate<Result>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let gate: Int32
        if let open = self.gate {
            gate = open
        } else {
            var fd: Int32
            repeat {
                fd = open(path + "-gate", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            } while fd < 0 && errno == EINTR
            guard fd >= 0 else { throw Failure(operation: "open", path: path + "-gate", code: errno) }
            self.gate = fd
            gate = fd
        }
        var result: Int32
        repeat {
            result = flock(gate, LOCK_EX)
        } while result != 0 && errno == EINTR
        guard result == 0 else { throw Failure(operation: "flock", path: path + "-gate", code: errno) }
        defer { _ = flock(gate, LOCK_UN) }
        return try body()
    }

    /// Releases the lock (the file stays open for a later ``lock(_:wait:)``).
    package func unlock() {
        _ = flock(descriptor, LOCK_UN)
        mode = nil
    }
}
