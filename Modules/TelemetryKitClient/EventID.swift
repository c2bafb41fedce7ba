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

/// Fast random (version 4) UUIDs for event ids.
///
/// `UUID()` asks the kernel for 16 random bytes on every call (a system call on Linux,
/// several microseconds under load). Event ids only need to be unique, so random bytes are
/// drawn from the system generator in blocks of 4 KiB (one system call) and handed out 16 at
/// a time.
enum EventID {
    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var offset = 4096
    }

    private static let pool = Locked(Pool())

    static func make() -> UUID {
        let uuid = pool.withLock { pool -> uuid_t in
            if pool.offset + 16 > pool.bytes.count {
                pool.bytes.withUnsafeMutableBytes { EventID.fillRandom($0) }
                pool.offset = 0
            }
            let o = pool.offset
            pool.offset += 16
            let b = pool.bytes
            return (
                b[o], b[o + 1], b[o + 2], b[o + 3], b[o + 4], b[o + 5], (b[o + 6] & 0x0f) | 0x40, b[o + 7],
                (b[o + 8] & 0x3f) | 0x80, b[o + 9], b[o + 10], b[o + 11], b[o + 12], b[o + 13], b[o + 14], b[o + 15]
            )
        }
        return UUID(uuid: uuid)
    }

    #if os(Linux)
    /// `/dev/urandom`, opened once (the Glibc module does not export `getrandom`).
    private static let urandom = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
    #endif

    /// Fills `buffer` from the system's cryptographic generator, in one call where possible.
    private static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        #if canImport(Darwin)
        arc4random_buf(buffer.baseAddress, buffer.count)
        #elseif os(Linux)
        guard let base = buffer.baseAddress else { return }
        var filled = 0
        if urandom >= 0 {
            while filled < buffer.count {
                let result = read(urandom, base + filled, buffer.count - filled)
                if result > 0 {
                    filled += result
                } else if result < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }
        if filled < buffer.count {
            // /dev/urandom unavailable (sandbox): the standard library's generator never fails.
            var generator = SystemRandomNumberGenerator()
            for index in filled..<buffer.count {
                buffer[index] = UInt8(truncatingIfNeeded: generator.next())
            }
        }
        #else
        var generator = SystemRandomNumberGenerator()
        for index in buffer.indices {
            buffer[index] = UInt8(truncatingIfNeeded: generator.next())
        }
        #endif
    }
}
