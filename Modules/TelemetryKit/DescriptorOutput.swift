#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Unbuffered writes of text to a file descriptor with `write(2)`: the whole text, retried
/// after a signal interruption, ending quietly on any other failure (a closed pipe, a full
/// disk), so diagnostics and console output never crash the app. Shared by the core's
/// logger, the console transmitter and the CLI (package access: not part of the public API).
package enum DescriptorOutput {
    /// Standard output.
    package static let standardOutput: Int32 = 1
    /// Standard error.
    package static let standardError: Int32 = 2

    /// Writes `text` to `descriptor`.
    package static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(descriptor, base + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

private func systemWrite(_ descriptor: Int32, _ pointer: UnsafePointer<UInt8>, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.write(descriptor, pointer, count)
    #elseif canImport(Glibc)
    return Glibc.write(descriptor, pointer, count)
    #elseif canImport(Musl)
    return Musl.write(descriptor, pointer, count)
    #else
    return count
    #endif
}
