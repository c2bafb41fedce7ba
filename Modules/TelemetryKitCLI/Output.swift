#if Tools
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `text` and a line break to standard output at once (unbuffered), so output
/// shows up in order and immediately, also through a pipe.
func say(_ text: String = "") {
    write(text + "\n")
}

/// Writes `text` to standard output with `write(2)`. A closed pipe (`telemetrykit demo |
/// head`) ends the output quietly instead of crashing.
func write(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(base + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}

private func systemWrite(_ pointer: UnsafePointer<UInt8>, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(STDOUT_FILENO, pointer, count)
    #elseif canImport(Musl)
    return Musl.write(STDOUT_FILENO, pointer, count)
    #elseif canImport(Darwin)
    return Darwin.write(STDOUT_FILENO, pointer, count)
    #endif
}
#endif
