import TelemetryKitCacheSupport

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

// The journal's reads and writes of its file: whole ranges, retried after a signal, synced.
extension JSONLinesJournal {
    func readRange(into buffer: inout [UInt8], at offset: Int64) throws(JournalFailure) -> Int {
        let descriptor = self.descriptor
        let result: Result<Int, JournalFailure> = buffer.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return .success(0) }
            var total = 0
            while total < raw.count {
                let read = pread(descriptor, base + total, raw.count - total, off_t(offset) + off_t(total))
                if read < 0 {
                    if errno == EINTR { continue }
                    return .failure(JournalFailure("reading the journal"))
                }
                if read == 0 { break }
                total += read
            }
            return .success(total)
        }
        return try result.get()
    }

    func writeAll(_ bytes: [UInt8]) throws(JournalFailure) {
        try writeAll(bytes, to: descriptor)
    }

    func writeAll(_ bytes: some Collection<UInt8>, to descriptor: Int32) throws(JournalFailure) {
        let array = Array(bytes)
        let result: Result<Void, JournalFailure> = array.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return .success(()) }
            var written = 0
            while written < raw.count {
                let result = write(descriptor, base + written, raw.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return .failure(JournalFailure("writing the journal"))
                }
                written += result
            }
            return .success(())
        }
        try result.get()
    }

    func writeFile(_ path: String, _ bytes: ArraySlice<UInt8>) throws(JournalFailure) {
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw JournalFailure("creating \(path)") }
        defer { close(file) }
        try writeAll(bytes, to: file)
        try sync(file)
    }

    func sync() throws(JournalFailure) {
        try sync(descriptor)
    }

    func sync(_ descriptor: Int32) throws(JournalFailure) {
        #if canImport(Darwin)
        let result = fsync(descriptor)
        #else
        let result = fdatasync(descriptor)
        #endif
        guard result == 0 else { throw JournalFailure("fsync") }
    }

    /// Makes the journal's directory entry durable (after creating or renaming it).
    func syncDirectory() {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let handle = open(directory, O_RDONLY | O_CLOEXEC)
        guard handle >= 0 else { return }
        _ = fsync(handle)
        close(handle)
    }
}
