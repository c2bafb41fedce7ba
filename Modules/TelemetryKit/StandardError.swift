#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Unbuffered writes to file descriptor 2.
enum StandardError {
    static func write(_ string: String) {
        var copy = string
        copy.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(2, base + offset, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

private func systemWrite(_ fd: Int32, _ pointer: UnsafePointer<UInt8>, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.write(fd, pointer, count)
    #elseif canImport(Glibc)
    return Glibc.write(fd, pointer, count)
    #elseif canImport(Musl)
    return Musl.write(fd, pointer, count)
    #else
    return count
    #endif
}
